package snapshot

import (
	"testing"
	"time"

	"github.com/diskdoctor/diskdoctor/machine"
)

// Source parses a recorded machine's command manifest while Record's
// checks run: one that cannot be read still ends the snapshot, with the
// error Recorded gives, and nothing recorded.
func TestRecordRefusesAnUnreadableManifest(t *testing.T) {
	root := writeTree(t, map[string]string{
		"sys/block/sda/dev":      "8:0\n",
		"commands/manifest.yaml": "- argv: [dmesg]\n  stdout: dmesg.txt\n  no_such_field: 1\n",
		"commands/dmesg.txt":     "[    1.0] hello\n",
	})
	_, want := machine.Recorded(root)
	if want == nil {
		t.Fatal("Recorded reads the manifest")
	}
	src, _, err := Source(t.Context(), root)
	if err != nil {
		t.Fatalf("Source: %v", err)
	}
	rec, err := Record(t.Context(), src, RecordOptions{ProbeTimeout: time.Second})
	if err == nil || err.Error() != want.Error() {
		t.Fatalf("Record: %v, %v; want the error %q", rec, err, want)
	}
	// A manifest that reads records as before.
	good := writeTree(t, map[string]string{
		"sys/block/sda/dev":      "8:0\n",
		"commands/manifest.yaml": "- argv: [dmesg]\n  stdout: dmesg.txt\n",
		"commands/dmesg.txt":     "[    1.0] hello\n",
	})
	src, _, err = Source(t.Context(), good)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Record(t.Context(), src, RecordOptions{ProbeTimeout: time.Second}); err != nil {
		t.Fatal(err)
	}
}
