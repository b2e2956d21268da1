package report

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// report is a floor above rules (docs/architecture.md): it renders a
// rules.Report and knows nothing of the run that made it, nor of the
// commands beside the doctor. bench, which runs the doctor, renders its
// own results with report's styles and helpers, never the other way.
func TestReportImportsOnlyTheFloorsBelow(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	const module = "github.com/diskdoctor/diskdoctor/"
	// What runs the doctor, and the commands beside it.
	above := []string{"doctor", "bench", "snapshot", "cmd"}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		ast, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range ast.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			pkg, ok := strings.CutPrefix(p, module)
			if !ok {
				continue
			}
			for _, a := range above {
				if pkg == a || strings.HasPrefix(pkg, a+"/") {
					t.Errorf("%s imports %s: report renders a rules.Report, a floor below what runs the doctor", f, p)
				}
			}
		}
	}
}
