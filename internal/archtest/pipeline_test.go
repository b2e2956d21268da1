package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// pipelineCalls are the steps of the pipeline that only doctor.Run takes:
// running the checks and building the rules engine. snapshot, diff and
// bench call doctor.Run, so that a recorded, compared or benchmarked
// machine is judged exactly as the doctor judges it (issue #22).
var pipelineCalls = map[string][]string{
	module + "/checks": {"Run"},
	module + "/rules":  {"NewEngine"},
}

// TestOnlyDoctorRunsThePipeline fails on a non-test call of a pipeline step
// outside doctor/ (and outside the package that defines it).
func TestOnlyDoctorRunsThePipeline(t *testing.T) {
	fset := token.NewFileSet()
	calls := 0
	err := filepath.WalkDir(moduleRoot, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(moduleRoot, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if d.Name() == "testdata" || d.Name() == "fixtures" || strings.HasPrefix(d.Name(), ".") && rel != "." {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			return err
		}
		names := map[string]string{} // local name -> import path
		for _, im := range f.Imports {
			ip, _ := strconv.Unquote(im.Path.Value)
			if _, ok := pipelineCalls[ip]; !ok {
				continue
			}
			name := path.Base(ip)
			if im.Name != nil {
				name = im.Name.Name
			}
			names[name] = ip
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			id, ok := sel.X.(*ast.Ident)
			if !ok || names[id.Name] == "" {
				return true
			}
			for _, fn := range pipelineCalls[names[id.Name]] {
				if sel.Sel.Name != fn {
					continue
				}
				calls++
				if path.Dir(rel) != "doctor" {
					t.Errorf("%s: %s.%s outside doctor/: call doctor.Run instead", fset.Position(sel.Pos()), id.Name, fn)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if calls == 0 {
		t.Fatal("no call of a pipeline step found at all: the walk is broken")
	}
}
