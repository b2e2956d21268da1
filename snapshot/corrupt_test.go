package snapshot

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/diskdoctor/diskdoctor/internal/fixturetest"
	"github.com/diskdoctor/diskdoctor/machine/archive"
)

// TestOpenRefusesCorruptBits (#16 item 8): of a real snapshot (a fixture
// with a critical finding), flip one bit at a time at positions spread over
// the whole file and in every byte of the gzip header and trailer: every
// copy is refused, or replays to exactly the same report.
func TestOpenRefusesCorruptBits(t *testing.T) {
	file, _ := snapshotOf(t, filepath.Join(fixturesDir, "upgrade-after"), false)
	orig, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	want := reportJSON(t, examineArchive(t, file, false))
	if !bytes.Contains(want, []byte(`"critical"`)) {
		t.Fatal("the chosen fixture has no critical finding to lose")
	}
	var positions []int
	const spread = 256
	for i := range spread {
		positions = append(positions, i*len(orig)/spread)
	}
	for i := range 10 { // the gzip header: magic, method, flags, mtime, xfl, os
		positions = append(positions, i)
	}
	for i := len(orig) - 8; i < len(orig); i++ { // CRC-32 and length
		positions = append(positions, i)
	}
	refused, same := 0, 0
	start := time.Now()
	defer func() { t.Logf("took %s", time.Since(start)) }()
	for k, pos := range positions {
		b := bytes.Clone(orig)
		b[pos] ^= 1 << (k % 8)
		bad := filepath.Join(t.TempDir(), "flipped.tar.gz")
		if err := os.WriteFile(bad, b, 0o600); err != nil {
			t.Fatal(err)
		}
		dir, cleanup, err := archive.Open(t.Context(), bad)
		if err != nil {
			refused++
			continue
		}
		got := reportJSON(t, examineDir(t, dir, false))
		cleanup()
		if !bytes.Equal(want, got) {
			t.Errorf("bit %d of byte %d flipped: accepted with another report\n%s", k%8, pos, fixturetest.FirstDiff(want, got))
			continue
		}
		same++
	}
	t.Logf("%d single-bit flips of a %d-byte snapshot: %d refused, %d accepted with the identical report", len(positions), len(orig), refused, same)
}
