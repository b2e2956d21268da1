package checks_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/diskdoctor/diskdoctor/checks"
)

// assertFactsDeclared fails for every fact an observation holds that is
// not declared in the registry (checks/facts_table.go), holds a value of another
// type than its declared one, or is set by another check than its declared
// one: a fact two checks set would otherwise be the later one's, silently.
func assertFactsDeclared(t *testing.T, obs []*checks.Observation) {
	t.Helper()
	seen := map[string]bool{}
	for _, o := range obs {
		for _, f := range o.Facts() {
			key := o.Check + "\x00" + f.Name
			d, ok := checks.LookupFact(f.Name)
			switch {
			case !ok:
				if !seen[key] {
					t.Errorf("check %s sets fact %q, which checks/facts_table.go does not declare", o.Check, f.Name)
				}
			case d.SetBy != o.Check:
				if !seen[key] {
					t.Errorf("check %s sets fact %q, which checks/facts_table.go declares set by %s", o.Check, f.Name, d.SetBy)
				}
			case !d.On.Has(o.Kind):
				if !seen[key] {
					t.Errorf("check %s sets fact %q on a %s, which checks/facts_table.go declares on a %s", o.Check, f.Name, o.Kind, d.On)
				}
			case !d.Type.Holds(f.Value):
				t.Errorf("%s %s: fact %q is %T (%v), declared %s", o.Kind, o.Subject, f.Name, f.Value, f.Value, d.Type)
			}
			seen[key] = true
		}
	}
}

// The registry is well formed: every fact once, with a type, a meaning
// and a check that exists (or the engine).
func TestFactRegistry(t *testing.T) {
	names := map[string]bool{}
	for _, c := range checks.All() {
		names[c.Name] = true
	}
	facts := checks.Facts()
	if len(facts) < 400 {
		t.Fatalf("only %d facts declared", len(facts))
	}
	for i, d := range facts {
		if i > 0 && facts[i-1].Name == d.Name {
			t.Errorf("fact %q declared twice", d.Name)
		}
		if d.Type == "" || d.On == 0 || strings.TrimSpace(d.Meaning) == "" {
			t.Errorf("fact %q: type, subject kinds and meaning are required", d.Name)
		}
		if !names[d.SetBy] && d.SetBy != checks.SetByEngine {
			t.Errorf("fact %q: set by %q, which is no check", d.Name, d.SetBy)
		}
		if strings.ContainsAny(d.Meaning, "|\n") {
			t.Errorf("fact %q: a meaning is one line without |", d.Name)
		}
		if got, ok := checks.LookupFact(d.Name); !ok || got != d {
			t.Errorf("LookupFact(%q) = %v, %v", d.Name, got, ok)
		}
	}
	if _, ok := checks.LookupFact("no_such_fact"); ok {
		t.Error("LookupFact found an undeclared name")
	}
}

func TestFactTypeHolds(t *testing.T) {
	for _, tt := range []struct {
		t    checks.FactType
		v    any
		want bool
	}{
		{checks.TypeString, "x", true}, {checks.TypeString, nil, true}, {checks.TypeString, 1, false},
		{checks.TypeInt, 1, true}, {checks.TypeInt, int64(1), false}, {checks.TypeFloat, 1.0, true},
		{checks.TypeFloat, 1, false}, {checks.TypeStrings, []string{}, true}, {checks.TypeStrings, []any{}, false},
		{checks.TypeBool, true, true}, {checks.TypeUint64, uint64(1), true}, {checks.TypeRecords, []any{}, true},
		{checks.TypeWindow, &checks.Sample{}, true}, {checks.TypeBool, map[string]any{}, false},
	} {
		if got := tt.t.Holds(tt.v); got != tt.want {
			t.Errorf("%s.Holds(%#v) = %v, want %v", tt.t, tt.v, got, tt.want)
		}
	}
}

// factReaders are the methods of Observation whose first argument is a
// fact's name.
var factReaders = []string{"Set", "Get", "Lookup", "AddEvidence", "EvidenceOf"}

// Every fact a check names by a literal in its code is declared: in
// checks/, the first argument of an Observation's Set, Get, Lookup,
// AddEvidence and EvidenceOf; in rules/, an index of a subject's facts
// (s.facts["…"], facts["…"]). A misspelt name fails here rather than in a rule that
// never holds.
func TestFactLiteralsAreDeclared(t *testing.T) {
	for _, dir := range []string{".", "../rules"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		fset := token.NewFileSet()
		for _, p := range files {
			if strings.HasSuffix(p, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, p, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(f, func(n ast.Node) bool {
				var lit ast.Expr
				switch x := n.(type) {
				case *ast.CallExpr:
					if sel, ok := x.Fun.(*ast.SelectorExpr); ok && dir == "." && slices.Contains(factReaders, sel.Sel.Name) && len(x.Args) > 0 {
						lit = x.Args[0]
					}
				case *ast.IndexExpr:
					if sel, ok := x.X.(*ast.SelectorExpr); ok && sel.Sel.Name == "facts" {
						lit = x.Index
					}
					if id, ok := x.X.(*ast.Ident); ok && id.Name == "facts" {
						lit = x.Index
					}
				}
				bl, ok := lit.(*ast.BasicLit)
				if !ok || bl.Kind != token.STRING {
					return true
				}
				name, _ := strconv.Unquote(bl.Value)
				if _, ok := checks.LookupFact(name); !ok {
					t.Errorf("%s: fact %q is not declared in checks/facts_table.go", fset.Position(bl.Pos()), name)
				}
				return true
			})
		}
	}
}

// dynamicFact matches the facts a check names by parts: the pressure
// check's res+"_some_avg10", the sample's res+"_some_window_pct", the
// stack's "vm_"+sysctl.
var dynamicFact = regexp.MustCompile(`^(io|cpu|memory)_(some|full)_(avg10|avg60|avg300|window_pct)$|^vm_(dirty_ratio|dirty_background_ratio|dirty_bytes|dirty_background_bytes)$`)

// Every fact declared as a check's is named in the checks' code: a
// declaration no check sets any more fails here.
func TestEveryDeclaredFactIsSet(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var code strings.Builder
	for _, p := range files {
		if strings.HasSuffix(p, "_test.go") || strings.HasPrefix(p, "facts") {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		code.Write(b)
	}
	for _, d := range checks.Facts() {
		if d.SetBy == checks.SetByEngine || dynamicFact.MatchString(d.Name) {
			continue
		}
		if !strings.Contains(code.String(), strconv.Quote(d.Name)) {
			t.Errorf("fact %q is declared, set by %s, but no check names it", d.Name, d.SetBy)
		}
	}
}
