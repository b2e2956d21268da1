package dmtable

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// hexKey is a 512-bit key as `dmsetup table --showkeys` prints it.
const hexKey = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

func TestRedactRemovesKeys(t *testing.T) {
	in := strings.Join([]string{
		"luks-1: 0 1000 crypt aes-xts-plain64 " + hexKey + " 0 259:2 32768 2 no_read_workqueue no_write_workqueue",
		"0 8388608 crypt aes-xts-plain64 :64:logon:cryptsetup:ffeca43a-d0 0 1:0 0 1 sector_size:4096",
		"vg-root: 0 2048 linear 8:3 2048",
		"odd: 0 10 crypt " + hexKey,
		"a b: 0 10 crypt aes " + hexKey + " 0 8:1 0",
		"meta: 0 100 default-key aes-xts-plain64 " + hexKey + " 0 /dev/vda 0 1 allow_discards",
	}, "\n") + "\n"
	out := string(Redact([]byte(in)))
	for _, secret := range []string{hexKey, "ffeca43a", "logon"} {
		if strings.Contains(out, secret) {
			t.Errorf("%q survives redaction:\n%s", secret, out)
		}
	}
	if !strings.Contains(out, "vg-root: 0 2048 linear 8:3 2048\n") {
		t.Errorf("a linear line changed:\n%s", out)
	}
	if !strings.Contains(out, "luks-1: 0 1000 crypt aes-xts-plain64 "+Redacted+" 0 259:2 32768 2 no_read_workqueue no_write_workqueue\n") {
		t.Errorf("the crypt line lost more than its key:\n%s", out)
	}
}

func TestRedactCopies(t *testing.T) {
	in := []byte("x: 0 1 crypt aes " + hexKey + " 0 8:1 0\n")
	orig := bytes.Clone(in)
	once := Redact(in)
	if !bytes.Equal(in, orig) {
		t.Fatal("Redact rewrote its input in place")
	}
	if twice := Redact(once); !bytes.Equal(once, twice) {
		t.Fatalf("Redact is not idempotent:\n%s\n%s", once, twice)
	}
}

func TestParseGoodramCapture(t *testing.T) {
	b, err := os.ReadFile("testdata/morfikov-goodram-debian-crypt.txt")
	if err != nil {
		t.Fatal(err)
	}
	ts, err := Parse(Redact(b))
	if err != nil || len(ts) != 1 {
		t.Fatalf("Parse: %v, %d targets", err, len(ts))
	}
	tg := ts[0]
	if tg.Name != "debian_crypt" || tg.Length != 463583232 || tg.Type != "crypt" {
		t.Fatalf("target %+v", tg)
	}
	c, ok := tg.Crypt()
	if !ok || c.Cipher != "aes-xts-plain64" || c.Dev != "8:19" || c.SectorSize != 512 || !c.Has("allow_discards") || c.Has("no_read_workqueue") {
		t.Fatalf("crypt %+v %v", c, ok)
	}
	if strings.Contains(tg.Line, "logon") {
		t.Fatalf("key reference in evidence: %s", tg.Line)
	}
}

func TestCryptOptions(t *testing.T) {
	cases := []struct {
		line   string
		ok     bool
		sector int
	}{
		{"a: 0 8 crypt aes k 0 8:1 0 1 sector_size:4096", true, 4096},
		{"a: 0 8 crypt aes k 0 8:1 0", true, 512},
		{"a: 0 8 crypt aes k 0 8:1 0 2 sector_size:4096", false, 0}, // count does not match
		{"a: 0 8 crypt aes k 0 8:1 0 1 sector_size:1000", false, 0},
		{"a: 0 8 crypt aes k 0", false, 0},
	}
	for _, c := range cases {
		ts, err := Parse([]byte(c.line))
		if err != nil || len(ts) != 1 {
			t.Fatalf("%s: %v", c.line, err)
		}
		cr, ok := ts[0].Crypt()
		if ok != c.ok || (ok && cr.SectorSize != c.sector) {
			t.Errorf("%s: %+v %v", c.line, cr, ok)
		}
	}
	if ts, _ := Parse([]byte("No devices found\n")); len(ts) != 0 {
		t.Errorf("No devices found: %d targets", len(ts))
	}
}

func TestParseBounds(t *testing.T) {
	if _, err := Parse(make([]byte, MaxOutputBytes+1)); err == nil {
		t.Fatal("an oversized listing was read")
	}
}

// FuzzRedact: no hex key placed as a crypt target's key survives, and
// Redact never panics.
func FuzzRedact(f *testing.F) {
	f.Add("debian_crypt: 0 463583232 crypt aes-xts-plain64 KEY 0 8:19 32768 1 allow_discards")
	f.Add("0 1 crypt c KEY")
	f.Fuzz(func(t *testing.T, s string) {
		in := strings.ReplaceAll(s, "KEY", hexKey)
		out := string(Redact([]byte(in)))
		if strings.Contains(in, "crypt") && strings.Contains(out, hexKey) {
			for _, line := range strings.Split(out, "\n") {
				f := strings.Fields(line)
				for i, w := range f {
					if w == "crypt" && i+2 < len(f) && f[i+2] == hexKey {
						t.Fatalf("key survives: %q", line)
					}
				}
			}
		}
		Parse([]byte(out))
	})
}
