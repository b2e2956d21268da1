package kernlog

import (
	"regexp"
	"testing"
)

// The expressions KlogKey's one pass stands for: a number becomes "#", a
// run of white space one space.
var (
	numberRun = regexp.MustCompile(`0x[0-9a-fA-F]+|\b[0-9a-fA-F]*\d[0-9a-fA-F]*\b(?:[.:/][0-9a-fA-F]+\b)*`)
	spaceRun  = regexp.MustCompile(`\s+`)
)

func klogKeyByExpressions(text string) string {
	return spaceRun.ReplaceAllString(numberRun.ReplaceAllString(text, "#"), " ")
}

var klogKeySeeds = []string{
	"ata3.00: failed command: READ FPDMA QUEUED",
	"ata3.00: cmd 60/08:f0:00:48:5f/00:00:00:00:00/40 tag 30 ncq dma 4096 in",
	"nvme nvme0: I/O 123 QID 4 timeout, aborting",
	"blk_update_request: I/O error, dev sdb, sector 123456789 op 0x0:(READ) flags 0x80700 phys_seg 1 prio class 0",
	"pcieport 0000:00:1c.4: AER: Corrected error received: 0000:03:00.0",
	"sd 2:0:0:0: [sdb] tag#0 FAILED Result: hostbyte=DID_OK driverbyte=DRIVER_SENSE cmd_age=0s",
	"a0x12 10x5 0x1fg 0x1f.20 deadbeef cafe 12g 1.5 4/8 1.x 1.2.3 1..2 _1 1_ 0x 0xg",
	"tabs\tand\n\nnew\r\nlines  \f end   ",
	"ünï 12€ 3é é4 ",
	"",
}

func TestKlogKeyIsTheExpressions(t *testing.T) {
	for _, s := range klogKeySeeds {
		if got, want := Key(s), klogKeyByExpressions(s); got != want {
			t.Errorf("KlogKey(%q)\n got %q\nwant %q", s, got, want)
		}
	}
	if got := Key("ata3.00: cmd 60/08:f0 tag 30"); got != "ata3.#: cmd # tag #" {
		t.Errorf("KlogKey: got %q", got)
	}
}

func FuzzKlogKey(f *testing.F) {
	for _, s := range klogKeySeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := Key(s), klogKeyByExpressions(s); got != want {
			t.Fatalf("KlogKey(%q)\n got %q\nwant %q", s, got, want)
		}
	})
}
