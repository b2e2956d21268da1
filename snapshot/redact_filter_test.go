package snapshot

import (
	"slices"
	"strings"
	"testing"
)

// The literal checks before the serial-number expressions never skip a
// text the expressions match.
func TestHasNumberColonKeepsEveryMatch(t *testing.T) {
	for _, s := range []string{
		"Serial Number:    S4CSNF0N712345L", "SerialNumber: ABC123", "SERIAL NUMBER:X", "sErIaL nUmBeR:\tX",
		"serial number:", "x:y:Serial Number: Z", "ſerial number: X", "serial numbers: X", "serial number : X",
		"serial numbe: X", "serial", ":number", "number", "", "ID_SERIAL=Samsung_SSD_860_EVO_1TB_S4CSNF0N712345L",
	} {
		b := []byte(s)
		if serialNumberLine.Match(b) && !hasNumberColon(b) {
			t.Errorf("%q: the expression matches, the check says no", s)
		}
	}
	for s, want := range map[string]bool{"Serial Number: X": true, "NuMbEr:": true, "numbers:": false, "number :": false, "umber:": false, "": false} {
		if got := hasNumberColon([]byte(s)); got != want {
			t.Errorf("hasNumberColon(%q) = %v", s, got)
		}
	}
}

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

// findMACsEveryByte is findMACs trying every position, as it did before it
// jumped between separators.
func findMACsEveryByte(b []byte) []string {
	var out []string
	for i := 0; i+17 <= len(b); i++ {
		if !isMACAt(b, i) {
			continue
		}
		if i > 0 && (isHex(string(b[i-1:i])) || b[i-1] == ':' || b[i-1] == '-') {
			continue
		}
		if end := i + 17; end < len(b) && (isHex(string(b[end:end+1])) || b[end] == ':' || b[end] == '-') {
			continue
		}
		out = append(out, string(b[i:i+17]))
		i += 16
	}
	return out
}

// FuzzFindMACsJumps: jumping from separator to separator finds what trying
// every byte finds.
func FuzzFindMACsJumps(f *testing.F) {
	for _, s := range []string{
		"eth0: 52:54:00:12:34:56 up", "aa-bb-cc-dd-ee-ff", "x01:23:45:67:89:ab", "01:23:45:67:89:ab:cd",
		"0:1:2:3:4:5", "::::::::::::::::::", "--a1-b2-c3-d4-e5-f6--", "52:54:00:12:34:5", "", ":",
		"mac 00:00:00:00:00:00 and AA:BB:CC:DD:EE:FF, 11-22-33-44-55-66",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := findMACs(b), findMACsEveryByte(b); !slices.Equal(got, want) {
			t.Fatalf("findMACs(%q) = %q, every byte tried: %q", b, got, want)
		}
	})
}
