package kernlog

import (
	"strings"
	"testing"
)

func TestParseKernelLog(t *testing.T) {
	in := strings.Join([]string{
		"[    2.101312] sd 2:0:0:0: [sda] Write cache: disabled, read cache: enabled, doesn't support DPO or FUA",
		"[    3.644946] sd 6:0:0:0: [sde] Write cache: enabled, read cache: enabled",
		"Dec 10 18:56:03 kernel: sd 0:0:0:0: [sdf] Write cache: enabled, read cache: enabled, doesn't support DPO or FUA",
		"2023-04-01T10:00:00+0200 host kernel: [ 5.5] sd 1:0:0:0: [sdg] Write cache: disabled, read cache: enabled",
		"[   12.000000] sd 2:0:0:0: [sda] Write cache: enabled, read cache: enabled",
		"[    0.249351] pci 0000:01:00.0: 32.000 Gb/s available PCIe bandwidth, limited by 2.5 GT/s PCIe x16 link at 0000:00:01.0 (capable of 126.016 Gb/s with 8.0 GT/s PCIe x16 link)",
		"no timestamp at all",
		"[ broken",
		"",
	}, "\n")
	log := &Log{Lines: Parse([]byte(in))}
	if got := len(log.Lines); got != 8 {
		t.Fatalf("lines = %d, want 8", got)
	}
	if log.Lines[0].Time != 2.101312 || log.Lines[6].Time != -1 {
		t.Errorf("timestamps: %v %v", log.Lines[0].Time, log.Lines[6].Time)
	}
	wc := log.WriteCacheLines()
	// The later revalidation of sda (someone ran hdparm -W1) wins.
	want := map[string]bool{"sda": true, "sde": true, "sdf": true, "sdg": false}
	if len(wc) != len(want) {
		t.Fatalf("write cache lines = %v", wc)
	}
	for dev, en := range want {
		if wc[dev].Enabled != en {
			t.Errorf("%s enabled = %v, want %v", dev, wc[dev].Enabled, en)
		}
	}
	if wc["sda"].Line.Num != 5 {
		t.Errorf("sda line = %d, want 5", wc["sda"].Line.Num)
	}
	if _, ok := log.PCIeBandwidthLines()["0000:01:00.0"]; !ok {
		t.Error("PCIe bandwidth line not found")
	}
	var nilLog *Log
	if len(nilLog.WriteCacheLines()) != 0 || len(nilLog.PCIeBandwidthLines()) != 0 {
		t.Error("nil log must give no lines")
	}
}

// Parse reads lines up to the first of 1 MiB or more, and cuts them as
// bufio.ScanLines does: a trailing \r dropped, a last line without a
// newline kept.
func TestParseLineBound(t *testing.T) {
	long := strings.Repeat("x", maxLineBytes)
	for in, want := range map[string][]string{
		"a\r\nb":                          {"a", "b"},
		"a\n\nb\n":                        {"a", "", "b"},
		"before\n" + long + "\nafter\n":   {"before"},
		"before\n" + long[1:] + "\nafter": {"before", long[1:], "after"},
	} {
		var got []string
		for _, l := range Parse([]byte(in)) {
			got = append(got, l.Raw)
		}
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("%.20q…: %d lines, want %d", in, len(got), len(want))
		}
	}
}
