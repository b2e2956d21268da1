package machine_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/diskdoctor/diskdoctor/machine"
	"github.com/diskdoctor/diskdoctor/probes/drive"
	"github.com/diskdoctor/diskdoctor/probes/kernlog"
)

func TestRecordedRunner(t *testing.T) {
	dir := recordedDir(t, map[string]string{
		"commands/manifest.yaml": "- argv: [hdparm, -W, /dev/sda]\n  stdout: w.txt\n  exit: 0\n- argv: [zpool, status]\n  timeout: true\n- argv: [dmesg]\n  stdout: empty.txt\n  stderr: err.txt\n  exit: 1\n- argv: [nvme, list]\n  missing: true\n- argv: [storcli64, /call, show, all, J]\n  timeout: true\n",
		"commands/w.txt":         " write-caching =  1 (on)\n",
		"commands/empty.txt":     "",
		"commands/err.txt":       "dmesg: read kernel buffer failed: Operation not permitted\n",
	})
	h, err := machine.Recorded(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	if dc, err := drive.ReadHdparmW(ctx, h, "sda"); err != nil || !*dc.Enabled {
		t.Errorf("hdparm: %+v %v", dc, err)
	}
	if _, err := h.Run(ctx, "nvme", "list"); !errors.Is(err, machine.ErrToolMissing) {
		t.Errorf("missing: %v", err)
	}
	if _, err := h.Run(ctx, "not", "in", "manifest"); !errors.Is(err, machine.ErrToolMissing) {
		t.Errorf("unlisted argv: %v", err)
	}
	if _, err := kernlog.Read(ctx, h); !errors.Is(err, machine.ErrPermission) {
		t.Errorf("dmesg refused: %v", err)
	}
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if _, err := h.Run(short, "zpool", "status"); !errors.Is(err, machine.ErrTimeout) {
		t.Errorf("hanging command: %v", err)
	}
	// A controller CLI recorded hanging (issue #23) answers its probe with
	// ErrTimeout once the probe's own deadline passes, not the run's.
	probe, cancelProbe := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancelProbe()
	start := time.Now()
	if _, err := h.Run(probe, "storcli64", "/call", "show", "all", "J"); !errors.Is(err, machine.ErrTimeout) {
		t.Errorf("hanging controller CLI: %v", err)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("hanging controller CLI answered after %v, want soon after its 100ms deadline", took)
	}
	if _, err := h.ReadFile(ctx, "/sys/nothing"); !errors.Is(err, machine.ErrNotAvailable) {
		t.Errorf("missing file: %v", err)
	}
	if _, err := machine.Recorded(filepath.Join(dir, "commands")); err == nil {
		t.Error("a directory without sys/ is not a recording")
	}
}

// TestRecordedOutputs: an output file that two entries name is read once
// and kept; one that a single entry names is read each time it is asked
// for, not kept for the run; every caller gets a copy of its own.
func TestRecordedOutputs(t *testing.T) {
	dir := recordedDir(t, map[string]string{
		"commands/manifest.yaml": "- argv: [smartctl, -x, /dev/sda]\n  stdout: shared.json\n  exit: 0\n- argv: [smartctl, -x, /dev/sdb]\n  stdout: shared.json\n  exit: 0\n- argv: [hdparm, -W, /dev/sda]\n  stdout: own.txt\n  exit: 0\n",
		"commands/shared.json":   "{\"shared\": 1}\n",
		"commands/own.txt":       " write-caching =  1 (on)\n",
	})
	h, err := machine.Recorded(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	run := func(argv ...string) string {
		t.Helper()
		res, err := h.Run(ctx, argv...)
		if err != nil {
			t.Fatal(err)
		}
		out := string(res.Stdout)
		for i := range res.Stdout {
			res.Stdout[i] = 'X' // the caller's own bytes
		}
		return out
	}
	if got := run("smartctl", "-x", "/dev/sda"); got != "{\"shared\": 1}\n" {
		t.Errorf("shared output: %q", got)
	}
	if got := run("hdparm", "-W", "/dev/sda"); got != " write-caching =  1 (on)\n" {
		t.Errorf("own output: %q", got)
	}
	for _, f := range []string{"shared.json", "own.txt"} {
		if err := os.WriteFile(filepath.Join(dir, "commands", f), []byte("changed\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got := run("smartctl", "-x", "/dev/sdb"); got != "{\"shared\": 1}\n" {
		t.Errorf("shared output asked again: %q, want the bytes read the first time", got)
	}
	if got := run("hdparm", "-W", "/dev/sda"); got != "changed\n" {
		t.Errorf("own output asked again: %q, want it read again", got)
	}
}
