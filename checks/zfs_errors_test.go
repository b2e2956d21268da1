package checks_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/diskdoctor/diskdoctor/checks"
	"github.com/diskdoctor/diskdoctor/machine"
)

// A zpool status without an "errors:" line (cut short, or an older
// release) says nothing of data errors: the fact is unknown, never the
// parser's -1, which a report would print as "-1 data errors".
func TestZFSDataErrorsUnknownWithoutErrorsLine(t *testing.T) {
	root := copyFixture(t, "zfs-resilvering")
	status := filepath.Join(root, "commands/zpool-status-P-t.txt")
	b, err := os.ReadFile(status)
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, l := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(l, "errors:") {
			kept = append(kept, l)
		}
	}
	if len(kept) == len(strings.Split(string(b), "\n")) {
		t.Fatal("the fixture's zpool status has no errors: line to remove")
	}
	writeFile(t, status, strings.Join(kept, "\n"))
	h, err := machine.Recorded(root)
	if err != nil {
		t.Fatal(err)
	}
	res, err := checks.Run(t.Context(), h, checks.Options{})
	if err != nil {
		t.Fatal(err)
	}
	pools := 0
	for _, o := range res.Observations {
		if o.Kind != checks.KindPool || o.Check != "zfs" {
			continue
		}
		pools++
		if v, ok := o.Lookup("zfs_data_errors"); !ok || v != nil {
			t.Errorf("pool %s: zfs_data_errors = %v (set %v), want unknown (nil)", o.Subject, v, ok)
		}
	}
	if pools == 0 {
		t.Fatal("no pool observed")
	}
}
