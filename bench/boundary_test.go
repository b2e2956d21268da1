package bench

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Only probes/ reads the machine, and in bench only the runner executes
// programs or writes files: no other file of the package imports exec or
// raw system calls, or calls os to open, read, list, stat, write or remove.
func TestOnlyTheRunnerTouchesTheMachine(t *testing.T) {
	const runner = "runner.go"
	forbiddenImports := map[string]bool{"os/exec": true, "syscall": true, "golang.org/x/sys/unix": true, "io/ioutil": true}
	allowedOS := map[string]bool{"Getpid": true, "TempDir": true} // the test file's name, nothing read
	// signals.go names the signals that stop a run (syscall.SIGHUP, the
	// os.Signal type) to map them to exit statuses: the process's own
	// signals, nothing of the machine. internal/archtest still fails on any
	// system call it would make beyond those.
	allowedIn := map[string]map[string]bool{"signals.go": {"syscall": true, "Signal": true}}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") || f == runner {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		osName := ""
		for _, imp := range file.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if forbiddenImports[path] && !allowedIn[f][path] {
				t.Errorf("%s imports %s: only %s may", f, path, runner)
			}
			if path == "os" {
				osName = "os"
				if imp.Name != nil {
					osName = imp.Name.Name
				}
			}
		}
		if osName == "" {
			continue
		}
		ast.Inspect(file, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if id, ok := sel.X.(*ast.Ident); ok && id.Name == osName && !allowedOS[sel.Sel.Name] && !allowedIn[f][sel.Sel.Name] {
				t.Errorf("%s: os.%s: only %s (and probes/) may touch the machine", fset.Position(sel.Pos()), sel.Sel.Name, runner)
			}
			return true
		})
	}
	if checked < 10 {
		t.Fatalf("checked %d files: is the test in the package directory?", checked)
	}
}
