package shellquote

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

func TestQuoteLeavesPlainWordsAlone(t *testing.T) {
	for _, s := range []string{"sda", "/dev/disk/by-id/ata-WDC_WD40EFAX-68JH4N0_WD-WX12", "max_performance", "--size=1G", "host0:0:0", "50%", "a+b@c"} {
		if got := Quote(s); got != s {
			t.Errorf("Quote(%q) = %q, want it unchanged", s, got)
		}
	}
	for s, want := range map[string]string{
		"":            "''",
		"a b":         "'a b'",
		"it's":        `'it'\''s'`,
		"$(reboot)":   "'$(reboot)'",
		"~root":       "'~root'",
		"a\nb":        `$'a\x0ab'`,
		"\x1b[31m":    `$'\x1b[31m'`,
		"x\xffy'\\":   `$'x\xffy\'\\'`,
		"caf\u00e9 !": "'caf\u00e9 !'",
	} {
		if got := Quote(s); got != want {
			t.Errorf("Quote(%q) = %s, want %s", s, got, want)
		}
	}
}

// roundTrip has bash read each quoted word back, and compares the bytes it
// receives with the value that was quoted, and with what bash itself makes
// of its own printf %q of the value.
func roundTrip(t testing.TB, values []string) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not installed: apt-get install bash")
	}
	var script strings.Builder
	for _, v := range values {
		// Each value is written once in our quoting, once through bash's
		// own %q of our word; both are printed NUL-terminated.
		script.WriteString("v=" + Quote(v) + "\nprintf '%s\\0' \"$v\"\neval \"w=$(printf %q \"$v\")\"\nprintf '%s\\0' \"$w\"\n")
	}
	cmd := exec.Command(bash, "--norc", "--noprofile")
	cmd.Stdin = strings.NewReader(script.String())
	cmd.Env = []string{"LC_ALL=C.UTF-8"}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("bash: %v", err)
	}
	got := bytes.Split(out, []byte{0})
	if len(got) != 2*len(values)+1 {
		t.Fatalf("bash printed %d words for %d values", len(got)-1, len(values))
	}
	for i, v := range values {
		if string(got[2*i]) != v {
			t.Errorf("bash read Quote(%q) = %s as %q", v, Quote(v), got[2*i])
		}
		if string(got[2*i+1]) != v {
			t.Errorf("bash's printf %%q of %q reads back as %q", v, got[2*i+1])
		}
	}
}

func TestQuoteRoundTripsThroughBash(t *testing.T) {
	var all []string
	for c := 1; c < 256; c++ {
		all = append(all, "a"+string(rune(c))+"b", string([]byte{byte(c)}))
	}
	all = append(all, "", "'", "''", `\`, `'\''`, "$'x'", "!!", "`id`", "a\tb c", "é∂ü", "\u0085", "*", "?", "[a]", "{a,b}", "#x", "a#", "-n", "=x", "~", "x~")
	roundTrip(t, all)
}

func FuzzQuoteRoundTripsThroughBash(f *testing.F) {
	for _, s := range []string{"sda", "a b", "it's", "\x00", "\xff\xfe", "$'\\''", "\n", "é"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		// argv cannot hold a NUL byte: no command the doctor prints
		// carries one.
		if strings.IndexByte(s, 0) >= 0 {
			return
		}
		q := Quote(s)
		for _, c := range []byte(q) {
			if c < 0x20 || c == 0x7f {
				t.Fatalf("Quote(%q) = %q holds a control byte", s, q)
			}
		}
		roundTrip(t, []string{s})
	})
}
