package report

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/diskdoctor/diskdoctor/doctor"
	"github.com/diskdoctor/diskdoctor/internal/fixturetest"
	"github.com/diskdoctor/diskdoctor/rules"
)

var update = flag.Bool("update", false, "rewrite the fixtures' golden text reports and the promtool series")

const fixturesDir = "../fixtures"

// fixtures lists every recorded machine under fixtures/.
func fixtures(t *testing.T) []string { return fixturetest.Machines(t, fixturesDir) }

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

func hasWindow(name string) bool { return fixturetest.HasWindow(fixturesDir, name) }

// fixtureReport examines a fixture in-process, strictly: a rule that
// cannot be evaluated on the fixture's facts fails the test. Each fixture is
// examined once for the whole package (the renderers only read a report), so
// that the tests over every fixture do not each run the doctor again.
func fixtureReport(t *testing.T, name string) *rules.Report {
	t.Helper()
	e, _ := fixtureReports.LoadOrStore(name, &examined{})
	r := e.(*examined)
	r.once.Do(func() {
		o := doctor.Options{Root: filepath.Join(fixturesDir, name), ProbeTimeout: time.Second, Context: "auto", Strict: true}
		if hasWindow(name) {
			o.Sample = 5 * time.Second // replayed from the recording, whatever its length
		}
		r.rep, r.err = doctor.Examine(context.Background(), o)
		if r.err == nil {
			// The golden files name the fixture as the README does, from
			// the repository root.
			r.rep.Host.Root = "fixtures/" + name
		}
	})
	if r.err != nil {
		t.Fatal(r.err)
	}
	return r.rep
}

// fixtureReports holds each fixture's report, examined once (fixtureReport).
var fixtureReports sync.Map

type examined struct {
	once sync.Once
	rep  *rules.Report
	err  error
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	fixturetest.Golden(t, path, got, *update, "./report")
}

var (
	buildOnce sync.Once
	binary    string
	buildErr  error
)

// builtBinary is diskdoctor built once for the tests that hand its output
// or its path to a real consumer (node_exporter, systemd-analyze).
func builtBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "diskdoctor-report-test")
		if err != nil {
			buildErr = err
			return
		}
		binary = filepath.Join(dir, "diskdoctor")
		if out, err := exec.Command("go", "build", "-o", binary, "../cmd/diskdoctor").CombinedOutput(); err != nil {
			buildErr = errors.New(string(out))
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binary
}

// runBinary runs the built doctor from the repository root, so that
// --root fixtures/NAME is printed as the golden files have it.
func runBinary(t *testing.T, args ...string) (stdout, stderr []byte, code int) {
	t.Helper()
	cmd := exec.Command(builtBinary(t), args...)
	cmd.Dir = ".."
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var exitErr *exec.ExitError
	switch {
	case errors.As(err, &exitErr):
		code = exitErr.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return o.Bytes(), e.Bytes(), code
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binary != "" {
		os.RemoveAll(filepath.Dir(binary))
	}
	os.Exit(code)
}
