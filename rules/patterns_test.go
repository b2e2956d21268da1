package rules

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/diskdoctor/diskdoctor/machine"
)

// modelEntry is a datasheet entry with the given pattern.
func modelEntry(i int, match string) string {
	return fmt.Sprintf("  - match: '%s'\n    product: planted %d\n    class: sata-ssd\n    interface: sata\n    source: attack\n", match, i)
}

func writeTable(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "ds.yaml")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// The attack of issue 26: one `match` of 3.7 MB cost 420 MiB and four
// cost 974 MB and 16.7 s. Each is now refused, naming the file, the entry
// and the limit, before it is compiled.
func TestDatasheetPatternBounds(t *testing.T) {
	alternation := strings.Repeat("ABCDEFGHIJ|", 3_700_000/11)
	cases := []struct {
		name, body, want string
	}{
		{"3.7 MB pattern", "models:\n" + modelEntry(1, alternation), "model entry 1 (planted 1): match: refused: pattern of 3699993 bytes, more than 1024"},
		// Short, but a large program: the repeat expands on compilation.
		{"short pattern, large program", "models:\n" + modelEntry(1, "^WDC") + modelEntry(2, `[A-Z0-9]{1000}[a-z]{1000}`), "model entry 2 (planted 2): match: refused: pattern compiles to"},
		{"firmware_match", "firmware:\n  - match: '^X'\n    firmware_match: '[0-9A-F]{1000}[0-9A-F]{1000}'\n    severity: warning\n    title: planted\n    bug: b\n    source: s\n", "firmware entry 1 (planted): firmware_match: refused: pattern compiles to"},
		{"many entries", "models:\n" + strings.Repeat(modelEntry(1, "^X"), maxTableEntries), "entries, more than 5000"},
		{"many programs", "models:\n" + strings.Repeat(modelEntry(1, `^[A-Z]{900}`), 60), "instructions, more than 50000"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := writeTable(t, c.body)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			start := time.Now()
			_, err := LoadDatasheets(p)
			runtime.ReadMemStats(&after)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), p+": ") {
				t.Fatalf("want an error naming %s and %q, got %v", p, c.want, err)
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
				t.Errorf("refusing it allocated %d MiB", alloc>>20)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("refusing it took %v", d)
			}
		})
	}
}

// A table at the bounds' edge is still a table: patterns of the shipped
// kind, many of them, load.
func TestDatasheetPatternsWithinBounds(t *testing.T) {
	var b strings.Builder
	b.WriteString("models:\n")
	for i := range 1000 {
		b.WriteString(modelEntry(i, fmt.Sprintf(`^(PLANTED%04dA|PLANTED%04dB)\b`, i, i)))
	}
	ds, err := LoadDatasheets(writeTable(t, b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if d := ds.Lookup("PLANTED0999B", "sata-ssd"); d.Product != "planted 999" {
		t.Errorf("got %q", d.Product)
	}
}

// A recorded machine's datasheets.d is bounded the same way, the files
// together: each file below the bounds, all of them above.
func TestHostDatasheetsDirBounds(t *testing.T) {
	files := map[string]string{}
	for i := range 3 {
		files[fmt.Sprintf("%02d-planted.yaml", i)] = "models:\n" + strings.Repeat(modelEntry(i, "^X"), 2000)
	}
	root := recordedWithDatasheets(t, "hpe-microserver-writethrough", files)
	host, err := machine.Recorded(root)
	if err != nil {
		t.Fatal(err)
	}
	_, err = LoadHostDatasheets(context.Background(), host, "")
	if err == nil || !strings.Contains(err.Error(), DatasheetsDir+"/02-planted.yaml: refused: the datasheet tables together would hold") {
		t.Fatalf("got %v", err)
	}
}
