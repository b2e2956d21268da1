package rules

import (
	"strings"
	"testing"
)

// The USB rules on facts built in the test: the states no public capture
// shows whole (an SSD known behind a bridge without UAS, a dead host
// controller with I/O errors), and the unknowns that must stay silent.
func TestUSBRules(t *testing.T) {
	// The base device is a known SSD model: the bridge's disk is not.
	bridge := map[string]any{"model": "00SSD1", "rotational": nil, "transport": "usb", "usb_device": "2-1", "usb_id": "152d:0578", "usb_version": "3.10",
		"usb_aborts": 0, "usb_resets": 0, "usb_host_died": false, "usb_reset_summary": ""}
	with := func(extra map[string]any) map[string]any { return merged(bridge, extra) }
	tests := []struct {
		name, rule string
		facts      map[string]any
		want       string
	}{
		{"uas at 480", "usb-link-slow", with(map[string]any{"usb_driver": "uas", "usb_speed_mbps": 480.0, "usb_superspeed_capable": true, "usb_superspeed_why": "driven by uas"}), Warning},
		{"BOS SuperSpeed at 480", "usb-link-slow", with(map[string]any{"usb_driver": "usb-storage", "usb_speed_mbps": 480.0, "usb_superspeed_capable": true, "usb_superspeed_why": "SuperSpeed USB Device Capability in its BOS descriptor", "usb_bos_superspeed_plus": true}), Warning},
		{"uas at 5000", "usb-link-slow", with(map[string]any{"usb_driver": "uas", "usb_speed_mbps": 5000.0, "usb_superspeed_capable": true}), ""},
		{"USB 2 stick at 480", "usb-link-slow", with(map[string]any{"usb_driver": "usb-storage", "usb_speed_mbps": 480.0, "usb_superspeed_capable": false}), ""},
		{"capability unknown at 480", "usb-link-slow", with(map[string]any{"usb_driver": "usb-storage", "usb_speed_mbps": 480.0, "usb_superspeed_capable": nil}), ""},
		{"speed unknown", "usb-link-slow", with(map[string]any{"usb_driver": "uas", "usb_speed_mbps": nil, "usb_superspeed_capable": true}), ""},

		{"UAS off, disk class unknown", "usb-storage-not-uas", with(map[string]any{"usb_driver": "usb-storage", "usb_uas_disabled": true, "usb_uas_disabled_by": "the kernel's own list"}), Info},
		{"UAS off, rotational 0", "usb-storage-not-uas", with(map[string]any{"usb_driver": "usb-storage", "usb_uas_disabled": true, "usb_uas_disabled_by": "the kernel's own list", "rotational": false}), Warning},
		{"UAS off, smartctl says Solid State Device", "usb-storage-not-uas", with(map[string]any{"usb_driver": "usb-storage", "usb_uas_disabled": true, "usb_uas_disabled_by": "the kernel's own list", "smart_rotation_rpm": 0}), Warning},
		{"UAS off, smartctl says 5400 rpm", "usb-storage-not-uas", with(map[string]any{"usb_driver": "usb-storage", "usb_uas_disabled": true, "usb_uas_disabled_by": "the kernel's own list", "smart_rotation_rpm": 5400}), Info},
		{"UAS off, a hard disk", "usb-storage-not-uas", with(map[string]any{"usb_driver": "usb-storage", "usb_uas_disabled": true, "usb_uas_disabled_by": "the kernel's own list", "rotational": true}), Info},
		{"usb-storage, no word of UAS", "usb-storage-not-uas", with(map[string]any{"usb_driver": "usb-storage", "usb_uas_disabled": false}), ""},
		{"usb-storage, log unknown", "usb-storage-not-uas", with(map[string]any{"usb_driver": "usb-storage", "usb_uas_disabled": nil}), ""},

		{"UAS aborts", "usb-bridge-resets", with(map[string]any{"usb_driver": "uas", "usb_aborts": 8}), Warning},
		{"host controller died, I/O errors", "usb-bridge-resets", with(map[string]any{"usb_driver": "uas", "usb_host_died": true, "usb_aborts": 1, "klog_io_errors": 4}), Critical},
		{"one reset after resume", "usb-bridge-resets", with(map[string]any{"usb_driver": "uas", "usb_resets": 1}), ""},
		{"repeated resets", "usb-bridge-resets", with(map[string]any{"usb_driver": "usb-storage", "usb_resets": 5}), Warning},
		{"log unknown", "usb-bridge-resets", with(map[string]any{"usb_driver": "uas", "usb_aborts": nil, "usb_resets": nil, "usb_host_died": nil}), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantSeverity(t, "laptop", "auto", device("sda", tt.facts), tt.rule, tt.want)
		})
	}
}

// A note or a command's note that points to a remedy "below" has one
// below: without the bridge's VID:PID there is no quirk file to write.
func TestUSBBridgeResetsPointsOnlyToWhatIsThere(t *testing.T) {
	for _, id := range []any{"152d:0578", nil} {
		fs := findingsOf(judge(t, device("sda", map[string]any{"model": "00SSD1", "transport": "usb", "usb_device": "2-1", "usb_id": id,
			"usb_driver": "uas", "usb_aborts": 8, "usb_resets": 0, "usb_host_died": false})), "usb-bridge-resets")
		if len(fs) != 1 {
			t.Fatalf("usb_id %v: %v", id, fs)
		}
		persistent := false
		texts := fs[0].Notes
		for _, m := range fs[0].Remediation {
			persistent = persistent || m.Risk == RiskPersistent
			texts = append(texts, m.Note)
		}
		for _, s := range texts {
			if (strings.Contains(s, "remedy below") || strings.Contains(s, "quirk below")) && !persistent {
				t.Errorf("usb_id %v: %q points below, where no remedy is", id, s)
			}
		}
	}
}
