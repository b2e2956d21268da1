package snapshot

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/diskdoctor/diskdoctor/machine/archive"
)

// Issue #26: a recorded device 4,096 directories deep made snapshot write
// an archive that --snapshot then refused ("name longer than 4096
// bytes"). The writer refuses what the reader would (archive.Write), and
// Collect leaves such paths out, each named once under unreadable, so
// that the archive of the rest opens.
func TestSnapshotWritesOnlyWhatItReads(t *testing.T) {
	_, rec := snapshotOf(t, filepath.Join(fixturesDir, "sata-hdd-pending-sectors"), false)
	deep := "sys/devices/deep"
	extra := []*Entry{{Path: deep, Type: EntryDir}}
	for range 4096 {
		deep += "/d"
		extra = append(extra, &Entry{Path: deep, Type: EntryDir}, &Entry{Path: deep + "/size", Type: EntryFile, Data: []byte("1\n")})
	}
	long := "sys/devices/" + strings.Repeat("n", 4100)
	extra = append(extra, &Entry{Path: long, Type: EntryFile, Data: []byte("x")}, &Entry{Path: "sys/devices/longlink", Type: EntryLink, Target: strings.Repeat("../", 1400) + "x"})
	rec.Entries = append(rec.Entries, extra...)
	slices.SortFunc(rec.Entries, func(a, b *Entry) int { return strings.Compare(a.Path, b.Path) })

	// The attack first: written as it is, the archive is refused on write,
	// never written for the reader to refuse.
	var ae *archive.Error
	if _, err := WriteArchive(discard{}, rec, nil, time.Now()); !errors.As(err, &ae) || !strings.Contains(ae.Reason, "the reader") {
		t.Fatalf("archive of a too-deep path written: %v", err)
	}

	before := len(rec.Unreadable)
	rec.dropUnreadable()
	got := rec.Unreadable[before:]
	if len(got) != 3 {
		t.Errorf("unreadable %d entries, want 3 (the path too deep with what lies beneath it, the long name, the long link):\n%s", len(got), strings.Join(got, "\n"))
	}
	for _, u := range got {
		if !strings.Contains(u, "left out") {
			t.Errorf("unreadable %q does not say it was left out", u)
		}
	}
	file := archiveOf(t, rec)
	dir, cleanup, err := archive.Open(t.Context(), file)
	if err != nil {
		t.Fatalf("the snapshot's own archive is refused: %v", err)
	}
	cleanup()
	_ = dir
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
