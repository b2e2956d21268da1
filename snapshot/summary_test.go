package snapshot

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestWriteSummary(t *testing.T) {
	rec := &Recording{Commands: make([]RecordedCommand, 3), Redacted: true}
	for i := range 12 {
		rec.Unreadable = append(rec.Unreadable, fmt.Sprintf("/sys/block/sd%c/device/vpd_pg80: permission denied", 'a'+i))
	}
	var b strings.Builder
	WriteSummary(&b, "host.tar.gz", rec, ArchiveStats{Files: 40, Dirs: 9, Links: 5, Bytes: 15 << 20, Compressed: 1536}, 1234567*time.Microsecond)
	out := b.String()
	for _, want := range []string{
		"diskdoctor snapshot: wrote host.tar.gz: 40 files, 9 directories, 5 links, 3 commands; 15 MiB uncompressed, 1.5 KiB compressed; serials, WWNs, MACs and host name redacted; 1.235s\n",
		"12 paths could not be read and are not in the snapshot (listed in " + MetaFile + "):\n",
		"  /sys/block/sdj/device/vpd_pg80: permission denied\n  … and 2 more\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	if strings.Contains(out, "sdk") {
		t.Errorf("more than ten unreadable paths listed:\n%s", out)
	}
	b.Reset()
	WriteSummary(&b, "-", &Recording{}, ArchiveStats{Bytes: 900}, 0)
	if out := b.String(); !strings.Contains(out, "900 B uncompressed") || !strings.Contains(out, "serials kept (--keep-serials)") || strings.Contains(out, "could not be read") {
		t.Errorf("an unredacted, complete snapshot:\n%s", out)
	}
}

func TestSource(t *testing.T) {
	if h, label, err := Source(t.Context(), ""); err != nil || !h.IsLive() || label != "live" {
		t.Errorf("no root: %v %q %v, want this machine", h, label, err)
	}
	dir := "../fixtures/hpe-microserver-writethrough"
	if h, label, err := Source(t.Context(), dir); err != nil || h.IsLive() || label != dir {
		t.Errorf("a fixture: %v %q %v", h, label, err)
	}
	if _, _, err := Source(t.Context(), t.TempDir()+"/missing"); err == nil {
		t.Error("a root that does not exist must be an error")
	}
}
