package checks_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/diskdoctor/diskdoctor/internal/testutil"
)

// The real listing of multipath-paths-healthy (LIO-ORG maps whose
// features show queue_if_no_path, as multipath loads them for a retry
// count too) with multipathd's queueing column built beside it: "on"
// (no_path_retry queue) warns on that map only; "12 chk" (LIO-ORG's
// built-in no_path_retry 12, libmultipath hwtable.c) and an unrecorded
// multipathd give nothing, the latter a skipped entry. No public capture
// of the column was found.
func TestMultipathQueueForever(t *testing.T) {
	for _, c := range []struct {
		name, queueing string
		want           []string
		skipped        bool
	}{
		{"queue for ever", "name   queueing\nmpatha on\nmpathb 12 chk\n", []string{"mpatha"}, false},
		{"retry count", "name   queueing\nmpatha 12 chk\nmpathb 12 chk\n", nil, false},
		{"not recorded", "", nil, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			testutil.CopyTree(t, root, filepath.Join("..", "fixtures", "multipath-paths-healthy"))
			if c.queueing != "" {
				testutil.Must(t, os.WriteFile(filepath.Join(root, "commands", "multipathd-queueing.txt"), []byte(c.queueing), 0o644))
				f, err := os.OpenFile(filepath.Join(root, "commands", "manifest.yaml"), os.O_APPEND|os.O_WRONLY, 0)
				testutil.Must(t, err)
				_, err = f.WriteString("- argv: [multipathd, show, maps, format, '%n %Q']\n  stdout: multipathd-queueing.txt\n")
				testutil.Must(t, err)
				testutil.Must(t, f.Close())
			}
			res := runRecorded(t, root)
			fs, err := engineWith(t, "multipath-queue-forever").Judge(res)
			testutil.Must(t, err)
			var got []string
			for _, f := range fs {
				if f.Severity != "warning" {
					t.Errorf("%s: severity %s", f.Subjects, f.Severity)
				}
				got = append(got, f.Subjects...)
			}
			if len(got) != len(c.want) || (len(got) > 0 && got[0] != c.want[0]) {
				t.Errorf("subjects %v, want %v", got, c.want)
			}
			skipped := false
			for _, s := range res.Skipped {
				skipped = skipped || s.Check == "multipath queueing"
			}
			if skipped != c.skipped {
				t.Errorf("skipped %v, want %v: %+v", skipped, c.skipped, res.Skipped)
			}
		})
	}
}
