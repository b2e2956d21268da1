package probes

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseHdparmW(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		enabled *bool
		err     bool
	}{
		{"off", "\n/dev/sda:\n write-caching =  0 (off)\n", ptr(false), false},
		{"on", "\n/dev/sdb:\n write-caching =  1 (on)\n", ptr(true), false},
		{"CRLF", "\r\n/dev/sdb:\r\n write-caching =  1 (on)\r\n", ptr(true), false},
		{"no final newline", "\n/dev/sdb:\n write-caching =  0 (off)", ptr(false), false},
		{"not supported", "\n/dev/sdc:\n write-caching = not supported\n", ptr(false), false},
		{"empty", "", nil, true},
		{"garbage", "\x00\xff binary junk\n", nil, true},
		{"truncated", "\n/dev/sda:\n write-cach", nil, true},
		{"contradiction", " write-caching =  1 (off)\n", nil, true},
		{"out of range", " write-caching =  7 (on)\n", nil, true},
		{"ioctl error only", "\n/dev/sda:\n", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dc, err := ParseHdparmW([]byte(tt.in))
			if tt.err {
				if err == nil || !errors.Is(err, ErrParse) {
					t.Fatalf("want ErrParse, got %v (%+v)", err, dc)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if *dc.Enabled != *tt.enabled {
				t.Errorf("enabled = %v, want %v", *dc.Enabled, *tt.enabled)
			}
		})
	}
}

func TestParseUdev(t *testing.T) {
	in := "S:disk/by-id/ata-WDC_WDS200T1R0A-68A4W0_21234A800001\nS:disk/by-id/wwn-0x5001b448b9a1c2d3\nI:123\nE:ID_BUS=ata\nE:ID_ATA_WRITE_CACHE=1\nE:ID_ATA_WRITE_CACHE_ENABLED=0\nE:EMPTY=\nE:=novalue\nE:NOEQUALS\nG:systemd\nX\n\n"
	rec := parseUdev([]byte(in))
	want := []udevProp{{"ID_BUS", "ata"}, {"ID_ATA_WRITE_CACHE", "1"}, {"ID_ATA_WRITE_CACHE_ENABLED", "0"}, {"EMPTY", ""}}
	if !reflect.DeepEqual(rec.props, want) {
		t.Errorf("props = %v, want %v", rec.props, want)
	}
	for _, p := range want {
		if got := rec.Prop(p.name); got != p.value {
			t.Errorf("Prop(%s) = %q, want %q", p.name, got, p.value)
		}
	}
	if got := rec.Prop("ID_MISSING"); got != "" {
		t.Errorf("Prop of a missing name = %q", got)
	}
	// A name given twice: the later value, as before.
	if twice := parseUdev([]byte("E:ID_BUS=ata\nE:ID_BUS=usb\n")); twice.Prop("ID_BUS") != "usb" {
		t.Errorf("Prop of a name given twice = %q, want the later", twice.Prop("ID_BUS"))
	}
	if len(rec.Links) != 2 || rec.Links[0] != "disk/by-id/ata-WDC_WDS200T1R0A-68A4W0_21234A800001" {
		t.Errorf("links = %v", rec.Links)
	}
	for _, bad := range []string{"", "\x00\x01\x02", "E", strings.Repeat("E:K=", 10000)} {
		if rec := parseUdev([]byte(bad)); rec == nil || len(rec.props) > 0 && bad != strings.Repeat("E:K=", 10000) {
			t.Errorf("parseUdev(%q) = %+v; malformed lines are skipped", bad[:min(len(bad), 10)], rec)
		}
	}
	var nilRec *UdevRecord
	if nilRec.Prop("ID_BUS") != "" {
		t.Error("Prop on nil record must be empty")
	}
}

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
	log := &KernelLog{Lines: ParseKernelLog([]byte(in))}
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
	var nilLog *KernelLog
	if len(nilLog.WriteCacheLines()) != 0 || len(nilLog.PCIeBandwidthLines()) != 0 {
		t.Error("nil log must give no lines")
	}
}

func TestParseScheduler(t *testing.T) {
	tests := []struct {
		in     string
		active string
		n      int
	}{
		{"none [mq-deadline] kyber bfq", "mq-deadline", 4},
		{"[none] mq-deadline", "none", 2},
		{"none", "none", 1},
		{"", "", 0},
		{"[] none", "", 2},
		{"[bfq", "", 1},
	}
	for _, tt := range tests {
		a, all := ParseScheduler(tt.in)
		if a != tt.active || len(all) != tt.n {
			t.Errorf("ParseScheduler(%q) = %q %v", tt.in, a, all)
		}
	}
}

func TestParseLinkSpeed(t *testing.T) {
	tests := map[string]float64{
		"16.0 GT/s PCIe": 16, "8.0 GT/s PCIe": 8, "2.5 GT/s": 2.5, "5 GT/s": 5,
		"Unknown": 0, "": 0, "255 GT/s PCIe": 0, "-8 GT/s": 0, "x GT/s": 0, "8.0 Gb/s": 0,
	}
	for in, want := range tests {
		if got := ParseLinkSpeed(in); got != want {
			t.Errorf("ParseLinkSpeed(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestParseZpoolGet(t *testing.T) {
	got := ParseZpoolGet([]byte("storage\toff\ntank\ton\n\ngarbage line\nbad name\tx\n\t\n"))
	want := map[string]string{"storage": "off", "tank": "on"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestParseOSRelease(t *testing.T) {
	tests := map[string]string{
		"PRETTY_NAME=\"Debian GNU/Linux 13 (trixie)\"\nNAME=\"Debian GNU/Linux\"\n": "Debian GNU/Linux 13 (trixie)",
		"NAME=TrueNAS\nVERSION='25.04'\n":                                           "TrueNAS 25.04",
		"":                                                                          "",
		"# only a comment\n=\n":                                                     "",
	}
	for in, want := range tests {
		if got := ParseOSRelease([]byte(in)); got != want {
			t.Errorf("ParseOSRelease(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseManifest(t *testing.T) {
	good := "- argv: [hdparm, -W, /dev/sda]\n  stdout: a.txt\n- argv: [zpool, status]\n  timeout: true\n- argv: [smartctl]\n  missing: true\n"
	if es, err := parseManifest([]byte(good)); err != nil || len(es) != 3 {
		t.Fatalf("good manifest: %v %v", es, err)
	}
	for name, bad := range map[string]string{
		"no argv":      "- stdout: a.txt\n",
		"two outcomes": "- argv: [x]\n  stdout: a\n  timeout: true\n",
		"no outcome":   "- argv: [x]\n",
		"escape":       "- argv: [x]\n  stdout: ../../etc/passwd\n",
		"absolute":     "- argv: [x]\n  stdout: /etc/passwd\n",
		"not a list":   "argv: [x]\n",
		"garbage":      "\x00\x01: [",
	} {
		if _, err := parseManifest([]byte(bad)); !errors.Is(err, ErrParse) {
			t.Errorf("%s: want ErrParse, got %v", name, err)
		}
	}
}

func TestNaturalLess(t *testing.T) {
	in := []string{"sdaa", "sdb", "nvme10n1", "sda", "sdz", "nvme2n1", "nvme2n1p10", "nvme2n1p2"}
	want := []string{"nvme2n1", "nvme2n1p2", "nvme2n1p10", "nvme10n1", "sda", "sdb", "sdz", "sdaa"}
	got := append([]string(nil), in...)
	sortStrings(got)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestRecordedRunner(t *testing.T) {
	dir := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(dir, "sys"), 0o755))
	must(t, os.MkdirAll(filepath.Join(dir, "commands"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "commands", "manifest.yaml"), []byte(
		"- argv: [hdparm, -W, /dev/sda]\n  stdout: w.txt\n  exit: 0\n- argv: [zpool, status]\n  timeout: true\n- argv: [dmesg]\n  stdout: empty.txt\n  stderr: err.txt\n  exit: 1\n- argv: [nvme, list]\n  missing: true\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "commands", "w.txt"), []byte(" write-caching =  1 (on)\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "commands", "empty.txt"), nil, 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "commands", "err.txt"), []byte("dmesg: read kernel buffer failed: Operation not permitted\n"), 0o644))
	h, err := Recorded(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	if dc, err := ReadHdparmW(ctx, h, "sda"); err != nil || !*dc.Enabled {
		t.Errorf("hdparm: %+v %v", dc, err)
	}
	if _, err := h.Run(ctx, "nvme", "list"); !errors.Is(err, ErrToolMissing) {
		t.Errorf("missing: %v", err)
	}
	if _, err := h.Run(ctx, "not", "in", "manifest"); !errors.Is(err, ErrToolMissing) {
		t.Errorf("unlisted argv: %v", err)
	}
	if _, err := ReadKernelLog(ctx, h); !errors.Is(err, ErrPermission) {
		t.Errorf("dmesg refused: %v", err)
	}
	short, cancel := contextWithTimeout(ctx)
	defer cancel()
	if _, err := h.Run(short, "zpool", "status"); !errors.Is(err, ErrTimeout) {
		t.Errorf("hanging command: %v", err)
	}
	if _, err := h.ReadFile(ctx, "/sys/nothing"); !errors.Is(err, ErrNotAvailable) {
		t.Errorf("missing file: %v", err)
	}
	if _, err := Recorded(filepath.Join(dir, "commands")); err == nil {
		t.Error("a directory without sys/ is not a recording")
	}
}
