package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// eachSourceFile parses every non-test Go file of the module (fixtures,
// testdata and hidden directories left out, and any directory skipDir
// names) and hands it to f with its slash-separated path relative to the
// module root. It fails the test when it finds too few files to mean
// anything: a wrong moduleRoot must not pass every rule.
func eachSourceFile(t *testing.T, mode parser.Mode, skipDir func(rel string) bool, f func(fset *token.FileSet, rel string, file *ast.File)) {
	t.Helper()
	fset := token.NewFileSet()
	files := 0
	err := filepath.WalkDir(moduleRoot, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(moduleRoot, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if d.Name() == "testdata" || d.Name() == "fixtures" || strings.HasPrefix(d.Name(), ".") && rel != "." || skipDir != nil && skipDir(rel) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		file, err := parser.ParseFile(fset, p, nil, mode)
		if err != nil {
			return err
		}
		files++
		f(fset, rel, file)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 20 {
		t.Fatalf("walked only %d files: is moduleRoot right?", files)
	}
}
