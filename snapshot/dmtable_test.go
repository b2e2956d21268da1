package snapshot

import (
	"archive/tar"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/diskdoctor/diskdoctor/probes/dmtable"
)

// A snapshot records dmsetup table with every crypt key replaced, even
// with serials kept (no redaction asked): the key is removed as the
// command runs, before the recorder sees its output.
func TestSnapshotNeverKeepsCryptKeys(t *testing.T) {
	const hexKey = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"
	root := filepath.Join(t.TempDir(), "m")
	if out, err := exec.Command("cp", "-a", filepath.Join(fixturesDir, "dmcrypt-ssd-workqueues"), root).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
	table := "debian_crypt: 0 463583232 crypt aes-xts-plain64 " + hexKey + " 0 8:1 32768 1 allow_discards\n" +
		"keyring_crypt: 0 1000 crypt aes-xts-plain64 :64:logon:cryptsetup:c0ffee42-d0 0 8:1 0\n"
	if err := os.WriteFile(filepath.Join(root, "commands", "dmsetup-table.txt"), []byte(table), 0o644); err != nil {
		t.Fatal(err)
	}
	file, rec := snapshotOf(t, root, true)
	i := slices.IndexFunc(rec.Commands, func(c RecordedCommand) bool { return strings.Join(c.Argv, " ") == "dmsetup table" })
	if i < 0 {
		t.Fatal("the snapshot did not record dmsetup table")
	}
	if out := string(rec.Commands[i].Stdout); strings.Count(out, dmtable.Redacted) != 2 {
		t.Errorf("recorded dmsetup table:\n%s", out)
	}
	forEachMember(t, file, func(name string, _ *tar.Header, data []byte) {
		for _, secret := range []string{hexKey, hexKey[:32], "c0ffee42", "logon"} {
			if strings.Contains(string(data), secret) {
				t.Errorf("%s holds key material %q", name, secret)
			}
		}
	})
	// The replay judges as the recording did.
	rep := examineArchive(t, file, false)
	if !slices.Contains(findingKeys(rep), "dm-crypt-workqueues info sda") {
		t.Errorf("replay findings %v", findingKeys(rep))
	}
}
