package manifest

import (
	"errors"
	"testing"
)

func TestParseManifest(t *testing.T) {
	good := "- argv: [hdparm, -W, /dev/sda]\n  stdout: a.txt\n- argv: [zpool, status]\n  timeout: true\n- argv: [smartctl]\n  missing: true\n"
	if es, err := parse([]byte(good)); err != nil || len(es) != 3 {
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
		if _, err := parse([]byte(bad)); !errors.Is(err, ErrParse) {
			t.Errorf("%s: want ErrParse, got %v", name, err)
		}
	}
}

// The fuzz targets run briefly in CI on their seed corpus; none may panic.

func FuzzParseManifest(f *testing.F) {
	f.Add([]byte("- argv: [dmesg]\n  stdout: dmesg.txt\n"))
	f.Add([]byte("- argv: [zpool, status]\n  timeout: true\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = parse(b)
	})
}
