package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path"
	"strconv"
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
	calls := 0
	eachSourceFile(t, parser.SkipObjectResolution, nil, func(fset *token.FileSet, rel string, f *ast.File) {
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
				if sel.Sel.Name == fn {
					calls++
					if path.Dir(rel) != "doctor" {
						t.Errorf("%s: %s.%s outside doctor/: call doctor.Run instead", fset.Position(sel.Pos()), id.Name, fn)
					}
				}
			}
			return true
		})
	})
	if calls == 0 {
		t.Fatal("no call of a pipeline step found at all: the walk is broken")
	}
}
