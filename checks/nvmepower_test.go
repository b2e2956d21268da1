package checks

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/diskdoctor/diskdoctor/internal/testutil"
	"github.com/diskdoctor/diskdoctor/machine"
)

// The controller-down report of a gone NVMe goes to the disk the log
// names, APST judged from the module default the controller started
// with; with that default at 0 the same log does not blame APST; a
// recording without the controller's limit file leaves APST unknown.
func TestNVMePower(t *testing.T) {
	off := t.TempDir()
	src := "../fixtures/nvme-apst-controller-down"
	for _, f := range []string{"commands/manifest.yaml", "commands/dmesg.txt", "sys/block/.keep"} {
		b, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		testutil.WriteFile(t, filepath.Join(off, f), string(b))
	}
	testutil.WriteFile(t, filepath.Join(off, "sys/module/nvme_core/parameters/default_ps_max_latency_us"), "0\n")
	tests := []struct {
		root, dev     string
		allowed, down any
		hint          any
	}{
		{src, "nvme0n1", true, 1, true},
		{off, "nvme0n1", false, 1, true},
		{"../fixtures/healthy-workstation", "nvme0n1", nil, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.root, func(t *testing.T) {
			o, _ := recordedObservation(t, tt.root, tt.dev, nvmePower)
			for name, want := range map[string]any{"nvme_pm_apst_allowed": tt.allowed, "nvme_pm_controller_down": tt.down, "nvme_pm_power_hint": tt.hint, "nvme_pm_controller": "nvme0"} {
				if got := o.Get(name); got != want {
					t.Errorf("%s = %v, want %v", name, got, want)
				}
			}
			if tt.allowed != nil && len(o.EvidenceOf("nvme_pm_apst_allowed")) != 1 {
				t.Errorf("APST evidence %+v", o.EvidenceOf("nvme_pm_apst_allowed"))
			}
			if n, _ := tt.down.(int); n > 0 && len(o.EvidenceOf("nvme_pm_controller_down")) != 2 {
				t.Errorf("controller-down evidence %+v", o.EvidenceOf("nvme_pm_controller_down"))
			}
		})
	}
}

// Without nvme_core's parameter the skipped entry says what is unknown
// because of it, not the path its reason already names.
func TestNVMePowerModuleUnreadHint(t *testing.T) {
	h, err := machine.Recorded("../fixtures/nvme-link-degraded")
	if err != nil {
		t.Fatal(err)
	}
	env := newEnv(h, Options{ProbeTimeout: 5 * time.Second})
	nvmePower(context.Background(), env)
	found := false
	for _, s := range env.skipped() {
		if s.Check != "nvme-power" {
			continue
		}
		found = true
		if strings.Contains(s.Hint, "/sys/module") || !strings.Contains(s.Hint, "unknown") {
			t.Errorf("hint %q restates the reason %q", s.Hint, s.Reason)
		}
	}
	if !found {
		t.Fatalf("no nvme-power skipped entry: %+v", env.skipped())
	}
}
