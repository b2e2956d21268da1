package doctor

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/diskdoctor/diskdoctor/internal/fixturetest"
	"github.com/diskdoctor/diskdoctor/machine/archive"
	"github.com/diskdoctor/diskdoctor/rules"
)

var update = flag.Bool("update", false, "rewrite the fixtures' expected.json")

const fixturesDir = "../fixtures"

// fixtures lists every recorded machine under fixtures/.
func fixtures(t *testing.T) []string { return fixturetest.Machines(t, fixturesDir) }

// fixtureReport examines a fixture strictly: a rule that cannot be
// evaluated on the fixture's facts fails the test. A fixture with a
// recorded window is examined with --sample (replayed, whatever its length).
func fixtureReport(t *testing.T, name string) *rules.Report {
	t.Helper()
	o := Options{Root: filepath.Join(fixturesDir, name), ProbeTimeout: time.Second, Context: "auto", Strict: true}
	if _, err := os.Stat(filepath.Join(fixturesDir, name, "samples", "window.yaml")); err == nil {
		o.Sample = 5 * time.Second
	}
	rep, err := Examine(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	// The golden files name the fixture as the README does, from the
	// repository root.
	rep.Host.Root = "fixtures/" + name
	return rep
}

// TestGoldenFindings: every fixture's findings are its expected.json.
func TestGoldenFindings(t *testing.T) {
	for _, name := range fixtures(t) {
		t.Run(name, func(t *testing.T) {
			var got bytes.Buffer
			enc := json.NewEncoder(&got)
			enc.SetIndent("", "  ")
			if err := enc.Encode(fixtureReport(t, name)); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(fixturesDir, name, "expected.json")
			if *update {
				if err := os.WriteFile(path, got.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (write it with: go test ./doctor -update, then review the diff)", err)
			}
			if !bytes.Equal(want, got.Bytes()) {
				t.Errorf("%s differs from the doctor's output; if the change is intended, run go test ./... -update and review the diff\n%s", path, fixturetest.FirstDiff(want, got.Bytes()))
			}
		})
	}
}

// TestValidate: each mistake a person makes is refused with the valid
// values, and a typo gets the closest one (issue #16 item 11, #11).
func TestValidate(t *testing.T) {
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{Context: "Server"}, `--context "Server": not one of auto, server, desktop, laptop, vm, benchmark (did you mean "server"?)`},
		{Options{Context: "sever"}, `(did you mean "server"?)`},
		{Options{Context: "bogus"}, `not one of auto, server`},
		{Options{Context: "auto", Sample: -5 * time.Second}, "--sample -5s: must be 0 (no window) or longer"},
		{Options{Context: "auto", ProbeTimeout: -time.Second}, "--probe-timeout -1s: must be longer than zero"},
		{Options{Context: "auto", Disabled: []string{"writecahce"}}, `--disable-check "writecahce": not one of`},
		{Options{Context: "auto", Root: "a", Snapshot: "b"}, "exclude each other"},
	} {
		err := c.o.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one containing %q", c.o, err, c.want)
		}
	}
	if err := (Options{Context: "auto"}).Validate(); err != nil {
		t.Errorf("the defaults are refused: %v", err)
	}
}

// TestInterruptedIsNotAVerdict: a run whose context ends (Ctrl-C) or that
// runs past its deadline returns an error, never a report (issue #16 item 9).
func TestInterruptedIsNotAVerdict(t *testing.T) {
	root := filepath.Join(fixturesDir, "hpe-microserver-writethrough")
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if rep, err := Examine(ctx, Options{Root: root}); !errors.Is(err, ErrInterrupted) || rep != nil {
		t.Errorf("cancelled run: report %v, error %v; want no report and ErrInterrupted", rep != nil, err)
	}
	if rep, err := Examine(t.Context(), Options{Root: root, Deadline: time.Nanosecond}); !errors.Is(err, ErrDeadline) || rep != nil {
		t.Errorf("run past its deadline: report %v, error %v; want no report and ErrDeadline", rep != nil, err)
	}
}

// TestDatasheetsNotYAML: --datasheets naming a file that is not a datasheet
// table (a password file, an empty file, a table with a typo) is refused
// before anything runs (issue #16 item 11).
func TestDatasheetsNotYAML(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"shadow":  "root:$y$j9T$abc$def:19800:0:99999:7:::\ndaemon:*:19800:0:99999:7:::\n",
		"empty":   "",
		"typo":    "models:\n  - match: '^X'\n    clas: sata-ssd\n    source: me\n",
		"mapping": "hello: world\n",
	} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := Examine(t.Context(), Options{Root: filepath.Join(fixturesDir, "healthy-workstation"), Datasheets: p})
		if err == nil || !strings.Contains(err.Error(), "--datasheets") {
			t.Errorf("--datasheets %s (%s): error %v, want a refusal", p, name, err)
		}
	}
}

// A snapshot whose command manifest cannot be read ends the run with the
// manifest's error, named by the snapshot it came from.
func TestSnapshotManifestErrorNamesTheSnapshot(t *testing.T) {
	file := filepath.Join(t.TempDir(), "bad.tar.gz")
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	members := func(yield func(archive.Member) error) error {
		for _, m := range []archive.Member{
			{Name: "sys", Type: archive.Dir},
			{Name: "sys/block", Type: archive.Dir},
			{Name: "commands", Type: archive.Dir},
			{Name: "commands/manifest.yaml", Type: archive.File, Data: []byte("- argv: [dmesg]\n  no_such_field: 1\n")},
		} {
			if err := yield(m); err != nil {
				return err
			}
		}
		return nil
	}
	if _, err := archive.Write(f, members, time.Unix(0, 0)); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	_, err = Examine(t.Context(), Options{Snapshot: file, ProbeTimeout: time.Second})
	if err == nil || !strings.HasPrefix(err.Error(), "snapshot "+file+": ") || !strings.Contains(err.Error(), "no_such_field") {
		t.Errorf("Examine: %v; want the manifest's error, named by the snapshot", err)
	}
}
