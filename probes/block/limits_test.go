package block

import (
	"sync"
	"testing"

	"github.com/diskdoctor/diskdoctor/machine"
)

// pathLog is a machine.Tracer keeping the paths a probe read.
type pathLog struct {
	mu    sync.Mutex
	paths map[string]bool
}

func (l *pathLog) Path(p string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.paths[p] = true
}

func (l *pathLog) Command(machine.CmdResult, error) {}

// A partition's own alignment_offset is read only when its start is
// misaligned (it is that finding's evidence): sda2 of the misaligned-swap
// fixture starts inside a 4 KiB block, sda1 does not.
func TestLimitsReadPartitionOffsetOnlyWhenMisaligned(t *testing.T) {
	const root = "../../fixtures/partition-misaligned-swap"
	h, err := machine.Recorded(root)
	if err != nil {
		t.Fatal(err)
	}
	log := &pathLog{paths: map[string]bool{}}
	l := ReadLimits(t.Context(), h.WithTracer(log), deviceNamed(t, readRoot(t, root), "sda"))
	if len(l.Partitions) != 2 || l.Partitions[0].AlignmentOffset != nil || l.Partitions[1].AlignmentOffset == nil {
		t.Fatalf("partitions %+v: want sda1 without its offset, sda2 with it", l.Partitions)
	}
	if log.paths["/sys/block/sda/sda1/alignment_offset"] || !log.paths["/sys/block/sda/sda2/alignment_offset"] {
		t.Errorf("read %v: want sda2's alignment_offset and not sda1's", log.paths)
	}
}
