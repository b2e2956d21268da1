package snapshot

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/diskdoctor/diskdoctor/doctor"
	"github.com/diskdoctor/diskdoctor/internal/fixturetest"
	"github.com/diskdoctor/diskdoctor/machine"
	"github.com/diskdoctor/diskdoctor/machine/archive"
	"github.com/diskdoctor/diskdoctor/rules"
)

const fixturesDir = "../fixtures"

// fixtures lists every recorded machine under fixtures/.
func fixtures(t *testing.T) []string { return fixturetest.Machines(t, fixturesDir) }

// examineDir runs the doctor's pipeline on a recorded machine directory.
func examineDir(t *testing.T, dir string, strict bool) *rules.Report {
	t.Helper()
	h, err := machine.Recorded(dir)
	if err != nil {
		t.Fatal(err)
	}
	run, err := doctor.Run(t.Context(), h, doctor.Options{Label: dir, ProbeTimeout: time.Second, Strict: strict})
	if err != nil {
		t.Fatal(err)
	}
	return run.Report
}

// fixtureReport is a fixture's report, examined strictly once for the
// whole package: the round-trip and redaction tests compare their
// snapshots with the same run of the fixture, and only read it (TestMain
// fails the package if one wrote to it). A strict run that succeeds
// judges as a lenient one: strictness only turns a rule that could not
// be evaluated into an error.
func fixtureReport(t *testing.T, name string) *rules.Report {
	t.Helper()
	rep, err := fixtureReports.Get(name, func() (*rules.Report, error) {
		dir := filepath.Join(fixturesDir, name)
		h, err := machine.Recorded(dir)
		if err != nil {
			return nil, err
		}
		run, err := doctor.Run(context.Background(), h, doctor.Options{Label: dir, ProbeTimeout: time.Second, Strict: true})
		if err != nil {
			return nil, err
		}
		return run.Report, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

var fixtureReports = fixturetest.Shared[*rules.Report]{
	Fingerprint: func(r *rules.Report) ([]byte, error) { return json.Marshal(r) },
}

func TestMain(m *testing.M) {
	code := m.Run()
	if changed := fixtureReports.Changed(); len(changed) > 0 {
		fmt.Fprintf(os.Stderr, "FAIL: a test wrote to the shared report of %s, which the tests after it read\n", strings.Join(changed, ", "))
		code = 1
	}
	os.Exit(code)
}

// examineArchive unpacks a snapshot as --snapshot does and examines it.
func examineArchive(t *testing.T, file string, strict bool) *rules.Report {
	t.Helper()
	dir, cleanup, err := archive.Open(t.Context(), file)
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	return examineDir(t, dir, strict)
}

// reportJSON is a report's JSON with host.root normalized (rep itself
// is left as it is).
func reportJSON(t *testing.T, rep *rules.Report) []byte {
	t.Helper()
	r := *rep
	r.Host.Root = "ROOT"
	return mustJSON(t, &r)
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// snapshotOf records a recorded machine into an archive file, as the
// snapshot command does.
func snapshotOf(t *testing.T, root string, keep bool) (string, *Recording) {
	t.Helper()
	src, err := machine.Recorded(root)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := Record(t.Context(), src, RecordOptions{KeepSerials: keep, ProbeTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return archiveOf(t, rec), rec
}

// archiveOf writes a recording as the snapshot command does, into a
// file of the test's.
func archiveOf(t *testing.T, rec *Recording) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "snap.tar.gz")
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := WriteArchive(f, rec, rec.Meta("test", "test", time.Now()).Marshal(), time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return file
}

func findingKeys(r *rules.Report) []string {
	var out []string
	for _, f := range r.Findings {
		out = append(out, f.Rule+" "+string(f.Severity)+" "+strings.Join(f.Subjects, ","))
	}
	sort.Strings(out)
	return out
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func forEachMember(t *testing.T, file string, f func(name string, h *tar.Header, data []byte)) {
	t.Helper()
	fh, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	gz, err := gzip.NewReader(fh)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(tr)
		f(h.Name, h, data)
	}
}

// WriteDir writes the recording into dir (which must be empty or absent) in
// the fixture layout; tests use it, snapshots use WriteArchive.
func (rec *Recording) WriteDir(dir string, meta []byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	// Plain os calls under dir, not os.Root's MkdirAll, Symlink and
	// WriteFile (Go 1.25; go.mod says 1.24): a recording a test builds has
	// local paths, and one that has not is refused.
	return rec.walk(meta, func(e *Entry) error {
		if !filepath.IsLocal(e.Path) {
			return fmt.Errorf("WriteDir: %q is not a local path", e.Path)
		}
		p := filepath.Join(dir, filepath.FromSlash(e.Path))
		switch e.Type {
		case EntryDir:
			return os.MkdirAll(p, 0o755)
		case EntryLink:
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
			return os.Symlink(e.Target, p)
		default:
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
			return os.WriteFile(p, e.Data, 0o644)
		}
	})
}

// redactedTree records the machine files describes, as the probes would
// read it (trace: the reads and commands, through the traced host),
// redacted, and returns the recording and its dump (every path, target
// and content).
func redactedTree(t *testing.T, files map[string]string, trace func(ctx context.Context, th *machine.Host)) (*Recording, string) {
	t.Helper()
	root := writeTree(t, files)
	h, err := machine.Recorded(root)
	if err != nil {
		t.Fatal(err)
	}
	rec := NewRecorder()
	ctx := t.Context()
	trace(ctx, h.WithTracer(rec))
	got, err := rec.Collect(ctx, h, CollectOptions{Redact: true})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "snap")
	if err := got.WriteDir(out, nil); err != nil {
		t.Fatal(err)
	}
	return got, dump(t, out)
}
