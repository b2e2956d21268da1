package report

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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

// fixtureReport is a fixture's report as the doctor makes it, strictly
// (a rule that cannot be evaluated on the fixture's facts fails the
// test), with its recorded window if it has one.
func fixtureReport(t *testing.T, name string) *rules.Report {
	t.Helper()
	return examination(t, name, hasWindow(name)).Report
}

// plainReport is a fixture's report without its window (the default
// run, whose goldens are expected.txt and expected-v.txt).
func plainReport(t *testing.T, name string) *rules.Report {
	t.Helper()
	return examination(t, name, false).Report
}

// examination runs the doctor on a recorded machine (its name under
// fixtures/) once for the whole package, as Examine does, and keeps the
// observations the report was judged from. The renderers and the checks
// of what a report says only read it: every test over every fixture
// reads the same run (TestMain fails the package if one wrote to it).
func examination(t *testing.T, name string, window bool) *doctor.Result {
	t.Helper()
	key := name
	if window {
		key += " with its window"
	}
	res, err := examinations.Get(key, func() (*doctor.Result, error) {
		o := doctor.Options{Root: filepath.Join(fixturesDir, name), ProbeTimeout: time.Second, Context: "auto", Strict: true}
		if window {
			o.Sample = 5 * time.Second // replayed from the recording, whatever its length
		}
		ctx := context.Background()
		host, label, cleanup, err := doctor.Open(ctx, o)
		if err != nil {
			return nil, err
		}
		defer cleanup()
		o.Label = label
		res, err := doctor.Run(ctx, host, o)
		if err != nil {
			return nil, err
		}
		// The golden files name the fixture as the README does, from
		// the repository root.
		res.Report.Host.Root = "fixtures/" + name
		return res, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// examinations are the runs examination made, by machine and window.
var examinations = fixturetest.Shared[*doctor.Result]{
	Fingerprint: func(r *doctor.Result) ([]byte, error) { return json.Marshal(r.Report) },
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
	if changed := examinations.Changed(); len(changed) > 0 {
		fmt.Fprintf(os.Stderr, "FAIL: a test wrote to the shared report of %s, which the tests after it read\n", strings.Join(changed, ", "))
		code = 1
	}
	if binary != "" {
		os.RemoveAll(filepath.Dir(binary))
	}
	os.Exit(code)
}
