package checks

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/diskdoctor/diskdoctor/machine"
)

// manyLoopDevices records a machine whose /sys/block lists n loop devices,
// each with the attributes the kernel gives one (drivers/block/loop.c).
func manyLoopDevices(t *testing.T, n int) *machine.Host {
	t.Helper()
	root := t.TempDir()
	for i := range n {
		dir := filepath.Join(root, "sys/devices/virtual/block", fmt.Sprintf("loop%d", i))
		if err := os.MkdirAll(filepath.Join(dir, "queue"), 0o755); err != nil {
			t.Fatal(err)
		}
		for f, v := range map[string]string{"dev": fmt.Sprintf("7:%d", i), "size": "2048", "removable": "0", "queue/rotational": "0"} {
			if err := os.WriteFile(filepath.Join(dir, f), []byte(v+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := os.MkdirAll(filepath.Join(root, "sys/block"), 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		name := fmt.Sprintf("loop%d", i)
		if err := os.Symlink("../devices/virtual/block/"+name, filepath.Join(root, "sys/block", name)); err != nil {
			t.Fatal(err)
		}
	}
	h, err := machine.Recorded(root)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// Issue 26: a machine with tens of thousands of block devices ended with
// "cannot list block devices: timed out after 5s" and no hint. The
// inventory's deadline now grows with the devices /sys/block lists: a
// probe timeout far below what reading them takes still lets it finish.
func TestInventoryDeadlineGrowsWithDevices(t *testing.T) {
	const n = 1000
	h := manyLoopDevices(t, n)
	env := newEnv(h, Options{ProbeTimeout: 10 * time.Millisecond})
	start := time.Now()
	defer func() { t.Logf("inventory of %d devices: %v", n, time.Since(start)) }()
	devs, err := env.Devices(context.Background())
	if err != nil {
		t.Fatalf("inventory of %d devices under a 10ms probe timeout: %v", n, err)
	}
	if len(devs) != n {
		t.Errorf("%d devices, want %d", len(devs), n)
	}
	// The allowance is what let it finish, not a fast machine: were it
	// under the probe timeout alone, this test would show nothing.
	if d := time.Since(start); d < 10*time.Millisecond {
		t.Skipf("the inventory took %v, within the probe timeout alone", d)
	}
}

// A timeout that still happens names the option that gives it longer and
// how many devices there were.
func TestInventoryTimeoutNamesTheOption(t *testing.T) {
	h := manyLoopDevices(t, 1000)
	env := newEnv(h, Options{ProbeTimeout: 20 * time.Millisecond, inventoryPerDevice: -1})
	_, err := env.Devices(context.Background())
	if err == nil {
		t.Skip("1000 devices read within 20ms")
	}
	if strings.Contains(err.Error(), "listing /sys/block") {
		t.Skipf("the listing itself timed out: %v", err)
	}
	for _, want := range []string{"timed out after 20ms", "1000 entries in /sys/block", "retry with --probe-timeout 80ms"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q lacks %q", err, want)
		}
	}
}
