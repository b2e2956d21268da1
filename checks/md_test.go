package checks_test

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/diskdoctor/diskdoctor/checks"
	"github.com/diskdoctor/diskdoctor/probes/block"
	"github.com/diskdoctor/diskdoctor/probes/md"
	"github.com/diskdoctor/diskdoctor/rules"
)

// engineWith is the shipped rule set cut down to the named rules, strict: a
// rule that cannot be evaluated fails the test.
func engineWith(t *testing.T, ids ...string) *rules.Engine {
	t.Helper()
	ds, err := rules.LoadDatasheets("")
	if err != nil {
		t.Fatal(err)
	}
	e, err := rules.NewEngine(ds)
	if err != nil {
		t.Fatal(err)
	}
	var rs []*rules.Rule
	for _, r := range e.Rules {
		for _, id := range ids {
			if r.ID == id {
				rs = append(rs, r)
			}
		}
	}
	if len(rs) != len(ids) {
		t.Fatalf("rules loaded: %d of %d", len(rs), len(ids))
	}
	e.Rules, e.Strict = rs, true
	return e
}

var mdRules = []string{"md-degraded", "md-inactive", "md-background-work", "md-sync-pending"}

func judgeMD(t *testing.T, mdstat string) []rules.Finding {
	t.Helper()
	arrays, err := md.Parse([]byte(mdstat))
	if err != nil {
		t.Fatal(err)
	}
	obs := checks.MDObservations(arrays, nil, func(*block.Device) bool { return true })
	fs, err := engineWith(t, mdRules...).Judge(&checks.Result{Observations: obs})
	if err != nil {
		t.Fatal(err)
	}
	return fs
}

// An inactive array is down: critical, its members named; a resync that
// waits says why instead of "0 % done at 0 MB/s" (issue #10 items 7, 8).
// The arrays are the ones of issue #10 and of procfs' real mdstat fixture.
func TestMDInactiveAndWaiting(t *testing.T) {
	for _, c := range []struct {
		name, mdstat string
		want         []string // "rule severity subject: observed contains"
	}{
		{"inactive", "Personalities : [raid6] [raid5] [raid4]\nmd0 : inactive sdb1[0](S) sde1[3](S) sdd1[2](S)\n      8790402407 blocks super 1.2\n\nunused devices: <none>\n",
			[]string{"md-inactive critical md0: sdb1, sde1, sdd1"}},
		{"auto-read-only pending", "Personalities : [raid1]\nmd11 : active (auto-read-only) raid1 sdb2[0] sdc2[1]\n      4190208 blocks super 1.2 [2/2] [UU]\n      resync=PENDING\n\nunused devices: <none>\n",
			[]string{"md-sync-pending info md11: resync pending: the array is auto-read-only"}},
		{"delayed", "Personalities : [raid1]\nmd9 : active raid1 sdc2[2] sdd2[3] sdb2[1] sda2[0]\n      523968 blocks super 1.2 [4/4] [UUUU]\n      resync=DELAYED\n\nunused devices: <none>\n",
			[]string{"md-sync-pending info md9: another array on the same disks syncs first"}},
		{"resync running", "Personalities : [raid1]\nmd8 : active raid1 sdb1[1] sda1[0]\n      195310144 blocks [2/2] [UU]\n      [=>...................]  resync =  8.5% (16775552/195310144) finish=17.0min speed=259783K/sec\n\nunused devices: <none>\n",
			[]string{"md-background-work warning md8: resync 8.5 % done at 266 MB/s"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			fs := judgeMD(t, c.mdstat)
			if len(fs) != len(c.want) {
				for _, f := range fs {
					t.Logf("%s %s %v: %s", f.Rule, f.Severity, f.Subjects, f.Observed)
				}
				t.Fatalf("%d findings, want %d", len(fs), len(c.want))
			}
			for i, w := range c.want {
				head, text, _ := strings.Cut(w, ": ")
				f := fs[i]
				if got := f.Rule + " " + f.Severity + " " + strings.Join(f.Subjects, ","); got != head || !strings.Contains(f.Observed, text) {
					t.Errorf("%s: %s, want %s: …%s…", got, f.Observed, head, text)
				}
			}
		})
	}
}

// procfs' mdstat fixture (every state in one file): two inactive arrays,
// two waiting, and no "0 % done" anywhere.
func TestMDProcfsFixture(t *testing.T) {
	p := filepath.Join(samples, "sysfs", "procfs-fixtures.ttar")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Skipf("%s: the shared samples folder is absent", p)
	}
	s := string(b)
	i := strings.Index(s, "Path: fixtures/proc/mdstat\nLines: 65\n")
	if i < 0 {
		t.Fatal("no mdstat in the procfs fixtures")
	}
	body := strings.SplitN(s[i:], "\n", 3)[2]
	body = strings.Join(strings.Split(body, "\n")[:65], "\n") + "\n"
	byRule := map[string][]string{}
	for _, f := range judgeMD(t, body) {
		byRule[f.Rule+" "+f.Severity] = append(byRule[f.Rule+" "+f.Severity], f.Subjects...)
		if strings.Contains(f.Observed, " 0 % done") {
			t.Errorf("%s: %s", f.Rule, f.Observed)
		}
	}
	for k, want := range map[string]string{
		"md-inactive critical":       "md219,md4",
		"md-sync-pending info":       "md11,md9",
		"md-background-work warning": "md201,md42,md6,md8",
	} {
		got := byRule[k]
		sort.Strings(got)
		if strings.Join(got, ",") != want {
			t.Errorf("%s: %v, want %s", k, got, want)
		}
	}
}
