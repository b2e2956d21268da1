package kernlog

import (
	"strings"
	"testing"
)

// One message in every form a log reaches the doctor: the prefix goes,
// the kernel's text stays, and the boot-time write-cache line is found in
// each (issue #10 item 1).
func TestKernelLogTimestampForms(t *testing.T) {
	const msg = "sd 2:0:0:0: [sda] Write cache: disabled, read cache: enabled, doesn't support DPO or FUA"
	tests := []struct {
		form, line string
		mono       float64 // -1: none
		wall       string  // "": none
	}{
		{"raw", "[    2.101312] " + msg, 2.101312, ""},
		{"raw with level", "<5>[    2.101312] " + msg, 2.101312, ""},
		{"dmesg -x", "kern  :notice: [    2.101312] " + msg, 2.101312, ""},
		{"dmesg -T", "[Mon Nov 20 11:44:21 2023] " + msg, -1, "2023-11-20 11:44:21"},
		{"dmesg --time-format iso", "2023-11-20T11:44:21,123456+01:00 " + msg, -1, "2023-11-20 10:44:21"},
		{"dmesg --time-format reltime", "[Nov20 11:44] " + msg, -1, ""},
		{"dmesg --time-format delta", "[  +0.000123] " + msg, -1, ""},
		{"syslog", "Nov 20 11:44:21 host kernel: " + msg, -1, "0000-11-20 11:44:21"},
		{"syslog with kernel stamp", "Nov 20 11:44:21 host kernel: [    2.101312] " + msg, 2.101312, "0000-11-20 11:44:21"},
		{"syslog without host", "Dec 10 18:58:49 kernel: " + msg, -1, "0000-12-10 18:58:49"},
		{"journalctl -k (short)", "Nov 20 11:44:21 optiplex kernel: " + msg, -1, "0000-11-20 11:44:21"},
		{"journalctl -o short-precise", "Nov 20 11:44:21.123456 optiplex kernel: " + msg, -1, "0000-11-20 11:44:21"},
		{"journalctl -o short-iso (old)", "2023-11-20T11:44:21+0100 optiplex kernel: " + msg, -1, "2023-11-20 10:44:21"},
		{"journalctl -o short-iso", "2023-11-20T11:44:21+01:00 optiplex kernel: " + msg, -1, "2023-11-20 10:44:21"},
		{"journalctl -o short-iso-precise", "2023-11-20T11:44:21.123456+01:00 optiplex kernel: " + msg, -1, "2023-11-20 10:44:21"},
		{"journalctl -o short-monotonic", "[    2.101312] optiplex kernel: " + msg, 2.101312, ""},
		{"rsyslog RFC 5424 with level", "<3>2024-04-17T00:26:33.540832+05:30 host-name kernel: [   29.782109] " + msg, 29.782109, "2024-04-16 18:56:33"},
	}
	for _, tt := range tests {
		t.Run(tt.form, func(t *testing.T) {
			lines := Parse([]byte(tt.line + "\n"))
			if len(lines) != 1 {
				t.Fatalf("%d lines", len(lines))
			}
			l := lines[0]
			if l.Text != msg {
				t.Errorf("text %q", l.Text)
			}
			if l.Time != tt.mono {
				t.Errorf("monotonic %v, want %v", l.Time, tt.mono)
			}
			got := ""
			if !l.Wall.IsZero() {
				got = l.Wall.UTC().Format("2006-01-02 15:04:05")
			}
			if got != tt.wall {
				t.Errorf("wall %q, want %q", got, tt.wall)
			}
			k := &Log{Lines: lines}
			if wc := k.WriteCacheLines(); len(wc) != 1 || wc["sda"].Enabled {
				t.Errorf("write-cache lines %+v", wc)
			}
		})
	}
}

// dmesg -T has no seconds since boot, but its first line, the boot banner,
// is the boot: a line 40 s later is a boot-time message, and the hung-task
// report an hour later is not (issue #10's "INFO: task mdadm:65108").
func TestKernelLogWallClockBootTimes(t *testing.T) {
	log := "[Mon Nov 20 10:43:00 2023] Linux version 6.1.0-13-amd64 (debian-kernel@lists.debian.org)\n" +
		"[Mon Nov 20 10:43:40 2023] sd 2:0:0:0: [sda] Write cache: disabled, read cache: enabled, doesn't support DPO or FUA\n" +
		"[Mon Nov 20 11:44:21 2023] INFO: task mdadm:65108 blocked for more than 122 seconds.\n"
	k := &Log{Lines: Parse([]byte(log))}
	if got := k.Lines[1].Time; got != 40 || !k.Lines[1].TimeFromWall {
		t.Errorf("write-cache line at %v s after boot (from wall %v), want 40", got, k.Lines[1].TimeFromWall)
	}
	ev := Classify(k, &Topology{}, 4000)
	if len(ev) != 2 || !ev[0].Boot || ev[1].Category != HungTask || ev[1].Boot {
		t.Fatalf("events %+v", ev)
	}
	if ev[1].Age == nil || *ev[1].Age != 4000-3681 {
		t.Errorf("age %v", ev[1].Age)
	}
}

// A syslog file spanning two boots: the first boot's I/O error at 500 s
// has no age (it is not 500 s before this boot's uptime).
func TestKernelLogEarlierBoot(t *testing.T) {
	log := "Nov 19 08:00:00 h kernel: [    0.000000] Linux version 6.1.0-13-amd64\n" +
		"Nov 19 08:08:20 h kernel: [  500.000000] I/O error, dev sda, sector 8 op 0x0:(READ) flags 0x0 phys_seg 1 prio class 2\n" +
		"Nov 20 09:00:00 h kernel: [    0.000000] Linux version 6.1.0-13-amd64\n" +
		"Nov 20 09:10:00 h kernel: [  600.000000] I/O error, dev sda, sector 8 op 0x0:(READ) flags 0x0 phys_seg 1 prio class 2\n"
	k := &Log{Lines: Parse([]byte(log))}
	ev := Classify(k, &Topology{LogOnly: true}, 700)
	if len(ev) != 2 || ev[0].Age != nil || ev[1].Age == nil || *ev[1].Age != 100 {
		t.Fatalf("events %+v", ev)
	}
}

// A stamp no kernel prints (400 digits parse as +Inf) is no stamp: a
// report must never carry an infinite time (issue #16 item 10).
func TestKernelLogHugeStampIsNoStamp(t *testing.T) {
	line := "[" + strings.Repeat("9", 400) + ".000000] sd 2:0:0:0: [sda] Write cache: disabled"
	mono, _, text := splitKernelStamp(line)
	if mono != -1 {
		t.Errorf("mono = %v, want -1 (absent)", mono)
	}
	if !strings.HasPrefix(text, "sd 2:0:0:0:") {
		t.Errorf("text = %q: the prefix was not taken off", text)
	}
}
