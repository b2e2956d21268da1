package checks

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/diskdoctor/diskdoctor/machine"
)

// One refused entry of /sys/block is said in the singular, two in the
// plural: "refused 1 entries" is not English.
func TestRefusedNamesCounted(t *testing.T) {
	for _, c := range []struct {
		names []string
		want  string
	}{
		{[]string{".x"}, `refused 1 entry of /sys/block whose name no kernel creates: ".x"`},
		{[]string{".a", ".b"}, `refused 2 entries of /sys/block whose names no kernel creates: ".a", ".b"`},
	} {
		root := t.TempDir()
		for _, n := range c.names {
			p := filepath.Join(root, "sys/block", n)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		h, err := machine.Recorded(root)
		if err != nil {
			t.Fatal(err)
		}
		env := newEnv(h, Options{})
		skipRefusedNames(context.Background(), env)
		var got []string
		for _, s := range env.skipped() {
			got = append(got, s.Reason)
		}
		if strings.Join(got, "|") != c.want {
			t.Errorf("skipped %q, want %q", got, c.want)
		}
	}
}

// A file a recording lacks is not the kernel's silence on this machine:
// the hint says the recording does not hold it, and why that may be.
func TestNotAvailableHintOnARecording(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "sys/block"), 0o755); err != nil {
		t.Fatal(err)
	}
	h, err := machine.Recorded(root)
	if err != nil {
		t.Fatal(err)
	}
	env := newEnv(h, Options{})
	env.Skip("platform", "", fmt.Errorf("/sys/class/dmi/id: %w", machine.ErrNotAvailable))
	s := env.skipped()
	if len(s) != 1 || strings.Contains(s[0].Hint, "does not expose this here") || !strings.Contains(s[0].Hint, "the recording does not hold it") {
		t.Errorf("%+v", s)
	}
}
