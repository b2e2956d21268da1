package checks_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/diskdoctor/diskdoctor/checks"
	"github.com/diskdoctor/diskdoctor/internal/testutil"
	"github.com/diskdoctor/diskdoctor/machine"
)

// zfs-root-swap-zvol: /proc/swaps lists /dev/zd0, udev's link
// /dev/zvol/rpool/swap points to it, and rpool is sdb4 (udev
// ID_FS_LABEL): the swap lands on sdb, so benchmarking sdb warns. Without
// the link the pool is unknown and nothing is said; a zvol of a pool on
// another disk is not sdb's; the /dev/zvol/ name in /proc/swaps gives the
// pool by itself; without --context benchmark nothing is said.
func TestSwapOnZvolBenchmarkTarget(t *testing.T) {
	const head = "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n"
	for _, c := range []struct {
		name, context, swaps, link string
		want                       bool
	}{
		{"zd0 of rpool, benchmark", "benchmark", "", "../../zd0", true},
		{"zd0 of rpool, no benchmark", "auto", "", "../../zd0", false},
		{"no /dev/zvol link", "benchmark", "", "", false},
		{"link to another zvol", "benchmark", "", "../../zd16", false},
		{"/dev/zvol name in /proc/swaps", "benchmark", head + "/dev/zvol/rpool/swap                    partition\t16777212\t0\t\t-2\n", "", true},
		{"zvol of another pool", "benchmark", head + "/dev/zvol/tank/swap                     partition\t16777212\t0\t\t-2\n", "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			testutil.CopyTree(t, root, filepath.Join("..", "fixtures", "zfs-root-swap-zvol"))
			lnk := filepath.Join(root, "dev", "zvol", "rpool", "swap")
			testutil.Must(t, os.Remove(lnk))
			if c.link != "" {
				testutil.Must(t, os.Symlink(c.link, lnk))
			}
			if c.swaps != "" {
				testutil.Must(t, os.WriteFile(filepath.Join(root, "proc", "swaps"), []byte(c.swaps), 0o644))
			}
			h, err := machine.Recorded(root)
			testutil.Must(t, err)
			res, err := checks.Run(t.Context(), h, checks.Options{ProbeTimeout: time.Second, Context: c.context})
			testutil.Must(t, err)
			fs, err := engineWith(t, "swap-on-benchmark-target").Judge(res)
			testutil.Must(t, err)
			if !c.want {
				if len(fs) != 0 {
					t.Errorf("findings %+v", fs)
				}
				return
			}
			if len(fs) != 1 || fs[0].Severity != "warning" || !slices.Equal(fs[0].Subjects, []string{"sdb"}) {
				t.Fatalf("findings %+v", fs)
			}
		})
	}
}

// The HPE MicroServer's raidz1 pool storage, its members known only from
// zpool status -P (the udev records removed in the test, so no
// zfs_member label says it): a zvol of storage in /proc/swaps lands on
// the three WD SSDs of the pool, and on no other disk.
func TestSwapOnZvolFromZpoolStatus(t *testing.T) {
	root := t.TempDir()
	testutil.CopyTree(t, root, filepath.Join("..", "fixtures", "hpe-microserver-writethrough"))
	testutil.Must(t, os.RemoveAll(filepath.Join(root, "run", "udev", "data")))
	testutil.Must(t, os.WriteFile(filepath.Join(root, "proc", "swaps"), []byte("Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n/dev/zvol/storage/swap                  partition\t8388604\t0\t\t-2\n"), 0o644))
	h, err := machine.Recorded(root)
	testutil.Must(t, err)
	res, err := checks.Run(t.Context(), h, checks.Options{ProbeTimeout: time.Second, Context: "benchmark"})
	testutil.Must(t, err)
	fs, err := engineWith(t, "swap-on-benchmark-target").Judge(res)
	testutil.Must(t, err)
	if len(fs) != 1 || len(fs[0].Subjects) != 3 {
		t.Fatalf("findings %+v, want one on the pool's three disks", fs)
	}
}
