package checks

import (
	"strings"
	"testing"

	"github.com/diskdoctor/diskdoctor/probes/kernlog"
)

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
		// ext4's daily "error count since last fsck" summary is the
		// fs-errors check's evidence, not a line nothing reads.
		{"../fixtures/ext4-errors-recorded", "sda", 0, true},
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

// The bus-level lines the kernel log once left "fine" are each read by a
// check (usb, hba, ahci-mode), so none is counted as not understood and
// each gives its own finding: the UAS abort of usb-uas-aborts-asm1053e,
// the dead IOC of hba-sas3-dead-ioc, a failed diag reset (an LSI 9211-8i's,
// probes/hba's test), the remapped NVMe of intel-rst-remapped-nvme-
// latitude-7410. libata's COMRESET failure is read by none: it stays
// unrecognised.
func TestKlogBusLinesRecognised(t *testing.T) {
	known := []string{
		"[   63.249320] sd 0:0:0:0: [sda] tag#26 uas_eh_abort_handler 0 uas-tag 10 inflight: CMD IN",
		"[1513141.839140] mpt3sas_cm0: SAS host is non-operational !!!!",
		"[  322.381517] mpt2sas_cm0: diag reset: FAILED",
		"[    0.746196] ahci 0000:00:17.0: Found 1 remapped NVMe devices.",
	}
	unknown := "[    9.123456] ata5: COMRESET failed (errno=-16)"
	log := &kernlog.Log{Lines: kernlog.Parse([]byte(strings.Join(append(known, unknown), "\n") + "\n"))}
	got := recognised(log, kernlog.NewTopology(nil, nil))
	for i, l := range known {
		if !errorWords.MatchString(l) {
			t.Errorf("%q: not taken for an error line", l)
		}
		if !got[i+1] {
			t.Errorf("line %d %q: not recognised", i+1, l)
		}
	}
	if got[len(known)+1] {
		t.Errorf("%q recognised", unknown)
	}
}

// When a gone disk was last logged names a zone only where the line gave
// one: dmesg -T prints the recorded machine's local time, not UTC.
func TestKlogWhenZone(t *testing.T) {
	lines := kernlog.Parse([]byte("[Tue Jun 19 06:35:54 2018] sd 2:0:0:0: [sdb] tag#0 FAILED\n2018-06-19T06:35:54Z host kernel: sd 2:0:0:0: [sdb] FAILED\n2018-06-19T06:35:54+02:00 host kernel: sd 2:0:0:0: [sdb] FAILED\n"))
	if len(lines) != 3 {
		t.Fatalf("%d lines", len(lines))
	}
	for i, want := range []string{"2018-06-19 06:35:54", "2018-06-19 06:35:54 UTC", "2018-06-19 06:35:54 +0200"} {
		if got := klogWhen(lines[i], -1); got != want {
			t.Errorf("line %d: %q, want %q", i+1, got, want)
		}
	}
}
