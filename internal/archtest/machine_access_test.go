package archtest

import (
	"flag"
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// update is accepted so that `go test ./... -update` works; no golden
// files here.
var _ = flag.Bool("update", false, "accepted for go test ./... -update; nothing to rewrite")

// moduleRoot is the repository root, from this package's directory.
const moduleRoot = "../.."

// allowed are the non-test files outside machine/ that may touch the
// machine, each for a reason the layout names (docs/architecture.md).
var allowed = map[string]string{
	"internal/fixturetest/fixturetest.go": "test support: lists the recorded machines under fixtures/ for the tests of several packages; only tests import it, never the binary",
	"bench/runner.go":                     "bench's one runner: it writes and measures (fio, dd, the test file, a raw device opened O_EXCL, the device's lock file), which the read-only Host must never do; a test replaces it with recorded fio output",
	"internal/clidoc/manpages.go":         "the build's man pages and completions, written into the directory the packaging script names; it reads nothing of the machine",
	"internal/testutil/testutil.go":       "test support: writes the tests' recorded roots and reads the shared samples; only tests import it, never the binary",
}

// machineCalls are the functions that open, read, list, create or execute
// something on the machine, by import path. For syscall and x/sys/unix
// every function called is one, except those in pureSyscalls. (io/fs is
// not listed: its functions read an fs.FS, which is the machine only when
// made by os.DirFS, listed here; an embed.FS is the binary.)
var machineCalls = map[string][]string{
	"os": {"Open", "OpenFile", "OpenInRoot", "OpenRoot", "ReadFile", "ReadDir", "Readlink", "Stat", "Lstat",
		"Create", "CreateTemp", "WriteFile", "Remove", "RemoveAll", "Rename", "Mkdir", "MkdirAll", "MkdirTemp",
		"Chmod", "Chown", "Lchown", "Chtimes", "Link", "Symlink", "Truncate", "DirFS", "CopyFS", "StartProcess", "Chdir"},
	"io/ioutil":             nil, // every function
	"path/filepath":         {"Glob", "EvalSymlinks", "Walk", "WalkDir", "Abs"},
	"os/exec":               {"Command", "CommandContext", "LookPath"},
	"syscall":               nil,
	"golang.org/x/sys/unix": nil,
}

var pureSyscalls = []string{"Major", "Minor", "Mkdev", "Signal", "Errno", "Getpid", "Getuid", "Geteuid", "Getgid", "Getegid", "Kill"}

// TestOnlyMachineTouchesTheMachine walks every non-test Go file outside
// machine/ (and its subpackages) and fails on a call that opens, reads,
// lists or executes anything on the machine: the doctor reads through
// machine.Host (live, recorded or traced), so that every read can be
// replayed and recorded. The probes parse what the Host reads.
func TestOnlyMachineTouchesTheMachine(t *testing.T) {
	var offences []string
	inMachine := func(rel string) bool { return rel == "machine" || strings.HasPrefix(rel, "machine/") }
	eachSourceFile(t, parser.SkipObjectResolution, inMachine, func(fset *token.FileSet, rel string, f *ast.File) {
		if allowed[rel] == "" {
			offences = append(offences, machineAccess(fset, f)...)
		}
	})
	for _, o := range offences {
		t.Errorf("%s: only machine/ touches the machine (read through machine.Host, or add a reasoned exception to allowed)", o)
	}
}

// machineAccess lists the calls of f that touch the machine.
func machineAccess(fset *token.FileSet, f *ast.File) []string {
	imports := map[string]string{} // local name → import path
	for _, im := range f.Imports {
		p, _ := strconv.Unquote(im.Path.Value)
		name := p[strings.LastIndex(p, "/")+1:]
		if im.Name != nil {
			name = im.Name.Name
		}
		imports[name] = p
	}
	called := map[*ast.SelectorExpr]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok {
			if sel, ok := c.Fun.(*ast.SelectorExpr); ok {
				called[sel] = true
			}
		}
		return true
	})
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		x, ok := sel.X.(*ast.Ident)
		if !ok {
			return true
		}
		p, ok := imports[x.Name]
		if !ok {
			return true
		}
		fns, listed := machineCalls[p]
		switch {
		case !listed:
			return true
		case fns == nil && (!called[sel] || slices.Contains(pureSyscalls, sel.Sel.Name)):
			// A whole package is listed: its constants, types and pure
			// functions are fine.
			return true
		}
		// A listed function is an offence called or not (open := os.Open).
		if fns == nil || slices.Contains(fns, sel.Sel.Name) {
			out = append(out, fset.Position(sel.Pos()).String()[len(moduleRoot)+1:]+": "+x.Name+"."+sel.Sel.Name)
		}
		return true
	})
	return out
}

// TestDetectorCatches: the walk is not blind (a test that cannot fail is a
// defect): each way of touching the machine in a made-up file is found,
// aliased imports and function values included, and harmless uses are not.
func TestDetectorCatches(t *testing.T) {
	src := `package x
import (
	"os"
	run "os/exec"
	"path/filepath"
	"syscall"
	"golang.org/x/sys/unix"
)
func f() {
	os.ReadFile("/etc/shadow")
	open := os.Open
	run.Command("zfs")
	filepath.Glob("/sys/block/*")
	syscall.Open("/dev/sda", syscall.O_RDONLY, 0)
	unix.Openat(0, "x", 0, 0)
	_ = unix.Major(0)
	var st syscall.Stat_t
	_ = os.Getenv("HOME")
	_, _ = open, st
}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, moduleRoot+"/x/x.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range machineAccess(fset, f) {
		got = append(got, o[strings.LastIndex(o, " ")+1:])
	}
	want := []string{"os.ReadFile", "os.Open", "run.Command", "filepath.Glob", "syscall.Open", "unix.Openat"}
	if !slices.Equal(got, want) {
		t.Errorf("found %v, want %v", got, want)
	}
}
