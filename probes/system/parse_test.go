package system

import (
	"testing"
)

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
