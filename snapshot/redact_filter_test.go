package snapshot

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

// The filter before the Replacer lets through every text holding a value,
// wherever it stands, and the tokens are the Replacer's.
func TestMayHoldLongLetsEveryValueThrough(t *testing.T) {
	s := newSecrets()
	s.add("S4CSNF0N712345L", "serial")
	s.add("WD-WCC4N1234567", "serial")
	s.add("0x5002538e40a1b2c3", "wwn")
	s.macs([]byte("52:54:00:12:34:56"))
	tk := newTokenizer(s)
	for v := range tk.tokenOf {
		if len(v) < 8 {
			continue
		}
		for _, text := range []string{v, "x" + v, v + "\n", "/dev/disk/by-id/ata-Samsung_" + v + "-part1", strings.Repeat("a", 100) + v + strings.Repeat("b", 7)} {
			if !tk.mayHoldLong(text) {
				t.Errorf("%q: filtered out", text)
			}
			if got := tk.apply(text); strings.Contains(got, v) {
				t.Errorf("%q: %q left in %q", text, v, got)
			}
		}
	}
	for _, text := range []string{"", "mq-deadline\n", "/sys/devices/pci0000:00/0000:00:17.0/ata1/host0/target0:0:0/0:0:0:0/block/sda/queue/rotational", "S4CSNF0"} {
		if got := tk.apply(text); got != text {
			t.Errorf("%q rewritten as %q", text, got)
		}
	}
}

func TestFindMACs(t *testing.T) {
	for in, want := range map[string][]string{
		"eth0: 52:54:00:12:34:56 up":                            {"52:54:00:12:34:56"},
		"aa-bb-cc-dd-ee-ff":                                     {"aa-bb-cc-dd-ee-ff"},
		"52:54:00:12:34:56 52:54:00:12:34:57,AA-BB-CC-DD-EE-FF": {"52:54:00:12:34:56", "52:54:00:12:34:57", "AA-BB-CC-DD-EE-FF"},
		"mac=(52:54:00:12:34:56)":                               {"52:54:00:12:34:56"},
		"x01:23:45:67:89:ab":                                    {"x01:23:45:67:89:ab"[1:]},
		"001:23:45:67:89:ab":                                    nil, // a longer run of hex
		"01:23:45:67:89:ab:cd":                                  nil, // an EUI-64
		"--a1-b2-c3-d4-e5-f6--":                                 nil,
		"01:23:45-67:89:ab":                                     nil, // mixed separators
		"52:54:00:12:34:5":                                      nil,
		"0:1:2:3:4:5":                                           nil,
		"":                                                      nil,
	} {
		if got := findMACs([]byte(in)); !slices.Equal(got, want) {
			t.Errorf("findMACs(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzFindMACs: whatever a recorded text holds, what is taken for a MAC
// is one, stands in the text on its own, and nothing panics.
func FuzzFindMACs(f *testing.F) {
	for _, s := range []string{
		"eth0: 52:54:00:12:34:56 up", "aa-bb-cc-dd-ee-ff", "x01:23:45:67:89:ab", "01:23:45:67:89:ab:cd",
		"0:1:2:3:4:5", "::::::::::::::::::", "--a1-b2-c3-d4-e5-f6--", "52:54:00:12:34:5", "", ":",
		"mac 00:00:00:00:00:00 and AA:BB:CC:DD:EE:FF, 11-22-33-44-55-66",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, m := range findMACs(b) {
			if len(m) != 17 || !bytes.Contains(b, []byte(m)) || !isHex(strings.NewReplacer(":", "", "-", "").Replace(m)) {
				t.Fatalf("%q: %q taken for a MAC", b, m)
			}
		}
	})
}
