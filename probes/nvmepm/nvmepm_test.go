package nvmepm

import "testing"

func TestParseLatency(t *testing.T) {
	tests := []struct {
		in      string
		us      int64
		allows  bool
		wantErr bool
	}{
		{"100000\n", 100000, true, false},
		{"0", 0, false, false},
		{"auto", 0, true, false},
		{"any", 0, true, false},
		{"5500", 5500, true, false},
		{"-1", 0, false, true},
		{"", 0, false, true},
		{"lots", 0, false, true},
	}
	for _, tt := range tests {
		l, err := ParseLatency(tt.in)
		if (err != nil) != tt.wantErr {
			t.Errorf("ParseLatency(%q) error %v", tt.in, err)
			continue
		}
		if err == nil && (l.US != tt.us || l.Allows() != tt.allows) {
			t.Errorf("ParseLatency(%q) = %+v (allows %v), want %d, %v", tt.in, l, l.Allows(), tt.us, tt.allows)
		}
	}
}

func TestParsePolicy(t *testing.T) {
	tests := map[string]string{
		"[default] performance powersave powersupersave": "default",
		"default performance [powersave] powersupersave": "powersave",
		"default [performance] powersave powersupersave": "performance",
		"default performance powersave [powersupersave]": "powersupersave",
	}
	for in, want := range tests {
		if got, err := ParsePolicy(in); err != nil || got != want {
			t.Errorf("ParsePolicy(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "default performance", "[]", "[ default ]"} {
		if got, err := ParsePolicy(bad); err == nil {
			t.Errorf("ParsePolicy(%q) = %q, want an error", bad, got)
		}
	}
}

func TestCmdlineValue(t *testing.T) {
	cl := "BOOT_IMAGE=/vmlinuz ro nvme_core.default_ps_max_latency_us=5500 quiet nvme_core.default_ps_max_latency_us=0 pcie_aspm=off"
	if v, ok := CmdlineValue(cl, "nvme_core.default_ps_max_latency_us"); !ok || v != "0" {
		t.Errorf("latency = %q, %v; want the last one, 0", v, ok)
	}
	if v, ok := CmdlineValue(cl, "pcie_aspm"); !ok || v != "off" {
		t.Errorf("pcie_aspm = %q, %v", v, ok)
	}
	if _, ok := CmdlineValue(cl, "pcie_port_pm"); ok {
		t.Error("pcie_port_pm found on a line without it")
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"100000", "auto", "[default] performance powersave powersupersave", "[", "[]]", "9999999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if l, err := ParseLatency(s); err == nil && !l.Unlimited && l.US < 0 {
			t.Fatalf("negative latency from %q", s)
		}
		if p, err := ParsePolicy(s); err == nil && p == "" {
			t.Fatalf("empty policy from %q", s)
		}
		_, _ = CmdlineValue(s, "pcie_aspm")
	})
}
