package machine_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/diskdoctor/diskdoctor/internal/testutil"
	"github.com/diskdoctor/diskdoctor/machine"
	"github.com/diskdoctor/diskdoctor/probes/smart"
)

// A recording made before the SMART argv gained "-n standby" (issue #26)
// answers today's argv from the one it holds, and says so: the result's
// Argv is the recorded one. A recording that holds today's argv answers it
// as it is; an argv held under neither name is "not recorded".
func TestRecordedRunnerAnswersFromPredecessor(t *testing.T) {
	dir := recordedDir(t, map[string]string{
		"commands/manifest.yaml": "- argv: [smartctl, -x, -j, /dev/sda]\n  stdout: old.json\n  exit: 64\n- argv: [smartctl, -x, -j, /dev/sdb]\n  stdout: old.json\n- argv: [smartctl, -x, -n, standby, -j, /dev/sdb]\n  stdout: new.json\n- argv: [smartctl, -x, -j, /dev/sdd]\n  missing: true\n",
		"commands/old.json":      "{}\n",
		"commands/new.json":      "{\"new\":1}\n",
	})
	h, err := machine.Recorded(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	asked := smart.Argv("sda")
	res, err := h.Run(ctx, asked...)
	if err != nil || res.Exit != 64 || string(res.Stdout) != "{}\n" {
		t.Fatalf("old argv: %+v %v", res, err)
	}
	if want := []string{"smartctl", "-x", "-j", "/dev/sda"}; !slices.Equal(res.Argv, want) || !machine.IsPredecessor(asked, res) {
		t.Errorf("answered as %q, want the recorded %q, marked a predecessor", res.Argv, want)
	}
	asked = smart.Argv("sdb")
	if res, err := h.Run(ctx, asked...); err != nil || string(res.Stdout) != "{\"new\":1}\n" || machine.IsPredecessor(asked, res) {
		t.Errorf("today's argv recorded: %+v %v", res, err)
	}
	var te *machine.ToolError
	if _, err := h.Run(ctx, smart.Argv("sdc")...); !errors.As(err, &te) || !te.NotRecorded {
		t.Errorf("recorded under no name: %v, want not recorded", err)
	}
	// smartctl answered for sda: a "missing" entry of the same program is
	// a command the recording lacks, never a program not installed.
	if _, err := h.Run(ctx, smart.Argv("sdd")...); !errors.As(err, &te) || te.Recorded || !te.NotRecorded || !te.Answered {
		t.Errorf("old argv marked missing beside a recorded answer: %v, want not recorded (the program answered)", err)
	}
}

// zpool's recorded output says zfsutils-linux was installed: zfs, which
// the recording lacks, was there too.
func TestAnsweredByItsPackage(t *testing.T) {
	dir := recordedDir(t, map[string]string{
		"commands/manifest.yaml": "- argv: [zpool, status, -P, -t]\n  stdout: st.txt\n",
		"commands/st.txt":        "no pools available\n",
	})
	h, err := machine.Recorded(dir)
	if err != nil {
		t.Fatal(err)
	}
	var te *machine.ToolError
	if _, err := h.Run(t.Context(), "zfs", "get", "-H", "all"); !errors.As(err, &te) || !te.NotRecorded || !te.Answered || te.AnsweredBy != "zpool" {
		t.Errorf("zfs beside a recorded zpool: %v %+v, want not recorded and answered", err, te)
	}
	if _, err := h.Run(t.Context(), "smartctl", "-x", "/dev/sda"); !errors.As(err, &te) || te.Answered {
		t.Errorf("smartctl: %v %+v, want not answered", err, te)
	}
}

// recordedDir is a recorded machine of an empty sys/ and files (paths
// relative to its root).
func recordedDir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	testutil.Must(t, os.MkdirAll(filepath.Join(dir, "sys"), 0o755))
	for p, c := range files {
		testutil.Must(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755))
		testutil.Must(t, os.WriteFile(filepath.Join(dir, p), []byte(c), 0o644))
	}
	return dir
}
