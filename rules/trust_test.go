package rules

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/diskdoctor/diskdoctor/checks"
	"github.com/diskdoctor/diskdoctor/machine"
)

// plantDatasheets writes a datasheet file owned by uid with mode, as a
// user other than the administrator could leave it (issue #26: a file
// owned by nobody, mode 0666).
func plantDatasheets(t *testing.T, body string, uid int, mode os.FileMode) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("chown to another user needs root")
	}
	p := filepath.Join(t.TempDir(), "zz-planted.yaml")
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(p, uid, uid); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
	return p
}

// reportWith judges the recorded MicroServer with the given datasheets
// file, the whole pipeline.
func reportWith(t *testing.T, file string) *Report {
	t.Helper()
	ctx := context.Background()
	host, err := machine.Recorded(filepath.Join("..", "fixtures", "hpe-microserver-writethrough"))
	if err != nil {
		t.Fatal(err)
	}
	ds, err := LoadHostDatasheets(ctx, host, file)
	if err != nil {
		t.Fatal(err)
	}
	res, err := checks.Run(ctx, host, checks.Options{ProbeTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	engine, err := NewEngine(ds)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := engine.Build(res, "recorded")
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func citesLab(rep *Report) bool {
	for _, f := range rep.Findings {
		if strings.Contains(f.Expected, "planted") {
			return true
		}
	}
	return false
}

// The attack of issue #26: a datasheets file that another user can write
// (owned by nobody, mode 0666) changed what the doctor expects of the
// drives. It is not used; a skipped entry names it and the fix. The same
// file owned by the invoking user and not writable by others is used.
func TestUntrustedDatasheetsRefused(t *testing.T) {
	body := strings.ReplaceAll(labSA500, "lab fio runs, datasheets.d", "planted")
	for _, c := range []struct {
		name string
		uid  int
		mode os.FileMode
		want string // in the skipped entry's reason; "" = trusted
		fix  string
	}{
		{"nobody 0666", 65534, 0o666, "owned by uid 65534", "chown root:root"},
		{"nobody 0644", 65534, 0o644, "owned by uid 65534", "chown root:root"},
		{"own 0664", os.Getuid(), 0o664, "writable by group", "chmod go-w"},
		{"own 0646", os.Getuid(), 0o646, "writable by others", "chmod go-w"},
		{"own 0644", os.Getuid(), 0o644, "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := plantDatasheets(t, body, c.uid, c.mode)
			rep := reportWith(t, p)
			if c.want == "" {
				if !citesLab(rep) {
					t.Error("a file of the invoking user, writable by no one else, must be used")
				}
				return
			}
			if citesLab(rep) {
				t.Errorf("the planted file was used: a finding names its entry")
			}
			var found bool
			for _, s := range rep.Skipped {
				if strings.Contains(s.Reason, p) {
					found = true
					if !strings.Contains(s.Reason, c.want) || !strings.Contains(s.Hint, c.fix+" "+p) || !strings.Contains(s.Reason, "not used") {
						t.Errorf("skipped entry %+v: want %q in the reason and %q in the hint", s, c.want, c.fix+" "+p)
					}
				}
			}
			if !found {
				t.Errorf("no skipped entry names %s: %+v", p, rep.Skipped)
			}
		})
	}
}
