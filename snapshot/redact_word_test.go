package snapshot

import "testing"

// TestReplaceWordHostName: a host name is replaced where it stands alone,
// beside dots, dashes, underscores and slashes (none of which a host name
// holds but the dash, RFC 1123), and left inside a longer run of letters
// and digits.
func TestReplaceWordHostName(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"chunk2", "redacted-host"},
		{"/mnt/data_chunk2", "/mnt/data_redacted-host"},
		{"data-chunk2 chunk2.example.com", "data-redacted-host redacted-host.example.com"},
		{"md-name-chunk2:0", "md-name-redacted-host:0"},
		{"chunk23 xchunk2 chunk2x", "chunk23 xchunk2 chunk2x"},
		{"chunk2_chunk2", "redacted-host_redacted-host"},
	} {
		if got := replaceWord(c.in, "chunk2", redactedHost); got != c.want {
			t.Errorf("replaceWord(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestIsHex(t *testing.T) {
	for v, want := range map[string]bool{"0a1B": true, "": false, "0x1f": false, "\x10\x11": false, "g": false} {
		if got := isHex(v); got != want {
			t.Errorf("isHex(%q) = %v, want %v", v, got, want)
		}
	}
}
