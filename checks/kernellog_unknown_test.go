package checks

import "testing"

// An error line about a disk that nothing recognises keeps the disk's log
// from being called fine, and is counted in a skipped entry; a log whose
// error-like lines are all known (or benign) leaves the disk understood.
func TestKlogUnknown(t *testing.T) {
	tests := []struct {
		root, dev  string
		unknown    int
		understood any
	}{
		// "ata5: COMRESET failed (errno=-16)" three times: libata's
		// reset failure, which no kernel-log pattern reads yet.
		{"../fixtures/sata-lpm-link-resets", "sda", 3, nil},
		// "nvme nvme0: Shutdown timeout set to 8 seconds" is benign.
		{"../fixtures/healthy-workstation", "nvme0n1", 0, true},
		// The uas_eh_abort_handler lines are the USB check's.
		{"../fixtures/usb-uas-aborts-asm1053e", "sda", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.root, func(t *testing.T) {
			o, env := recordedObservation(t, tt.root, tt.dev, kernelLogCheck)
			if got := o.Get("klog_unrecognised"); got != tt.unknown {
				t.Errorf("klog_unrecognised = %v, want %d", got, tt.unknown)
			}
			if got := o.Get("klog_understood"); got != tt.understood {
				t.Errorf("klog_understood = %v, want %v", got, tt.understood)
			}
			skipped := false
			for _, s := range env.skipped() {
				if s.Check == "kernel-log" && contains(s.Subjects, tt.dev) {
					skipped = true
				}
			}
			if skipped != (tt.unknown > 0) {
				t.Errorf("skipped %v: %+v", skipped, env.skipped())
			}
		})
	}
}
