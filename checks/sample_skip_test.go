package checks_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/diskdoctor/diskdoctor/checks"
	"github.com/diskdoctor/diskdoctor/machine"
)

// --sample on a recording made without a window: the kernel exposed the
// counters, the recording holds one reading of them, and the hint says
// so rather than blaming the kernel.
func TestSampleSkippedOnARecordingWithoutWindow(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "sys/block"), 0o755); err != nil {
		t.Fatal(err)
	}
	h, err := machine.Recorded(root)
	if err != nil {
		t.Fatal(err)
	}
	res, err := checks.Run(t.Context(), h, checks.Options{ProbeTimeout: time.Second, Sample: 5 * time.Second, Disabled: []string{"smart"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range res.Skipped {
		if s.Check != "sample" {
			continue
		}
		if strings.Contains(s.Hint, "kernel") || !strings.Contains(s.Hint, "the recording holds no second reading") {
			t.Errorf("hint %q", s.Hint)
		}
		return
	}
	t.Errorf("no skipped sample entry: %+v", res.Skipped)
}
