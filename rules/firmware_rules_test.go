package rules

import (
	"strings"
	"testing"
)

// ssd-firmware-known-bad: the advisory's model and firmware give a
// finding (critical for the HPE power-on-hour bugs); the fixed firmware,
// another line, or an unknown model or firmware give none.
func TestSSDFirmwareKnownBad(t *testing.T) {
	for _, c := range []struct {
		name      string
		model, fw string
		want      string
	}{
		{"980 PRO on 3B2QGXA7", "Samsung SSD 980 PRO 1TB", "3B2QGXA7", Warning},
		{"980 PRO on 5B2QGXA7 (fixed)", "Samsung SSD 980 PRO 1TB", "5B2QGXA7", ""},
		{"990 PRO on 0B2QJXD7", "Samsung SSD 990 PRO 2TB", "0B2QJXD7", Warning},
		{"990 PRO 4TB line 0B2QJXG7", "Samsung SSD 990 PRO 4TB", "0B2QJXG7", ""},
		{"990 PRO on 1B2QJXD7 (fixed)", "Samsung SSD 990 PRO 2TB", "1B2QJXD7", ""},
		{"HPE VO1920JFDGV on HPD4", "VO1920JFDGV", "HPD4", Critical},
		{"HPE VO1920JFDGV on HPD8 (fixed)", "VO1920JFDGV", "HPD8", ""},
		{"HPE VO1920JFDGV on another line", "VO1920JFDGV", "HPDA1", ""},
		{"HPE EK0800JVYPN on HPD6", "EK0800JVYPN", "HPD6", Critical},
		{"firmware unknown", "Samsung SSD 980 PRO 1TB", "", ""},
		{"model unknown", "", "3B2QGXA7", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			facts := map[string]any{"transport": "nvme", "rotational": false, "model": c.model, "firmware": c.fw}
			if got := ruleSeverity(t, "ssd-firmware-known-bad", facts); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

// The observed line names the running firmware once: the Samsung
// advisories' titles carry it already, the HPE ones name only the fixed
// revision.
func TestSSDFirmwareObservedNamesRevisionOnce(t *testing.T) {
	for model, fw := range map[string]string{"Samsung SSD 980 PRO 2TB": "3B2QGXA7", "VO1920JFDGV": "HPD4"} {
		fs := findingsOf(judge(t, device("sda", map[string]any{"transport": "nvme", "model": model, "firmware": fw})), "ssd-firmware-known-bad")
		if len(fs) != 1 {
			t.Fatalf("%s %s: %v", model, fw, fs)
		}
		if n := strings.Count(fs[0].Observed, fw); n != 1 {
			t.Errorf("%s: observed %q names %s %d times", model, fs[0].Observed, fw, n)
		}
	}
}

// An MX500's single pending sector with nothing else is no failing drive;
// a second one, or a reallocation, is; another model's single pending
// sector is.
func TestPhantomPendingSector(t *testing.T) {
	mx500 := map[string]any{"transport": "sata", "rotational": false, "model": "CT1000MX500SSD1", "smart_firmware": "M3CR043",
		"smart_pending": uint64(1), "smart_reallocated": uint64(0), "smart_offline_uncorrectable": uint64(0), "smart_reported_uncorrectable": uint64(0),
		"smart_pending_only": true, "smart_warnings": []string{"1 sectors pending reallocation"}, "smart_critical": []string{}}
	for _, c := range []struct {
		name                 string
		facts                map[string]any
		failing, phantomInfo string
	}{
		{"MX500, one pending", mx500, "", Info},
		{"MX500, two pending", merged(mx500, map[string]any{"smart_pending": uint64(2), "smart_warnings": []string{"2 sectors pending reallocation"}}), Warning, ""},
		{"MX500, pending and reallocated", merged(mx500, map[string]any{"smart_reallocated": uint64(3), "smart_pending_only": false,
			"smart_warnings": []string{"3 reallocated sectors", "1 sectors pending reallocation"}}), Warning, ""},
		{"MX500 on other firmware", merged(mx500, map[string]any{"smart_firmware": "M3CR1XX"}), Warning, ""},
		{"another SSD, one pending", merged(mx500, map[string]any{"model": "Samsung SSD 860 EVO 1TB", "smart_firmware": "RVT04B6Q"}), Warning, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := ruleSeverity(t, "smart-failing", c.facts); got != c.failing {
				t.Errorf("smart-failing: got %q, want %q", got, c.failing)
			}
			if got := ruleSeverity(t, "smart-phantom-pending-sector", c.facts); got != c.phantomInfo {
				t.Errorf("smart-phantom-pending-sector: got %q, want %q", got, c.phantomInfo)
			}
		})
	}
}

func TestRevisionBefore(t *testing.T) {
	for _, c := range []struct {
		fw, fixed string
		want      bool
	}{{"HPD1", "HPD8", true}, {"HPD8", "HPD8", false}, {"HPD9", "HPD8", false}, {"HPDA", "HPD8", false}, {"XPD1", "HPD8", false}, {"HPD10", "HPD8", false}, {"hpd3", "HPD8", true}} {
		if got := revisionBefore(c.fw, c.fixed); got != c.want {
			t.Errorf("revisionBefore(%q, %q) = %v, want %v", c.fw, c.fixed, got, c.want)
		}
	}
}
