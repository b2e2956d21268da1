package snapshot

import (
	"testing"
	"time"

	"github.com/diskdoctor/diskdoctor/machine"
)

// A recorded machine whose command manifest cannot be read is no source:
// Source refuses it with the error Recorded gives, and nothing is
// recorded.
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
	if _, _, err := Source(t.Context(), root); err == nil || err.Error() != want.Error() {
		t.Fatalf("Source: %v; want the error %q", err, want)
	}
	// A manifest that reads records as before.
	good := writeTree(t, map[string]string{
		"sys/block/sda/dev":      "8:0\n",
		"commands/manifest.yaml": "- argv: [dmesg]\n  stdout: dmesg.txt\n",
		"commands/dmesg.txt":     "[    1.0] hello\n",
	})
	src, _, err := Source(t.Context(), good)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Record(t.Context(), src, RecordOptions{ProbeTimeout: time.Second}); err != nil {
		t.Fatal(err)
	}
}
