package checks

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/diskdoctor/diskdoctor/machine"
)

// A command that timed out: the hint begins with what to do, as it may be
// the report's first action ("First retry with --probe-timeout 20s; …").
func TestTimeoutHintStartsWithTheAction(t *testing.T) {
	_, hint, _ := explain("hdparm", fmt.Errorf("hdparm -W /dev/sdb: %w", machine.ErrTimeout), 5*time.Second, true)
	if !strings.HasPrefix(hint, "retry with --probe-timeout 20s") {
		t.Errorf("hint %q: want it to begin with the retry", hint)
	}
}

// On a recording, a file every kernel has is missing from the recording,
// not from the kernel: the hint says to record again.
func TestRecordingLacksMountinfo(t *testing.T) {
	_, env := recordedObservation(t, "../fixtures/corpus/ghw-qemu-virtio-blk", "vda", filesystems)
	for _, s := range env.skipped() {
		if s.Check == "mounts" {
			if !strings.Contains(s.Hint, "the recording lacks it") || strings.Contains(s.Hint, "the kernel does not expose") {
				t.Errorf("mounts hint %q: want the recording named", s.Hint)
			}
			return
		}
	}
	t.Errorf("no mounts entry among %+v", env.skipped())
}
