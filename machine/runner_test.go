package machine_test

import (
	"context"
	"errors"
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
