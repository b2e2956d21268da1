package rules

import (
	"testing"

	"github.com/expr-lang/expr"
)

// TestBatchCompilesAsExprCompile: every condition and score of the
// built-in rules compiles with the batch's shared configuration to the
// program expr.Compile makes with a configuration of its own, and a
// broken one fails with the same message.
func TestBatchCompilesAsExprCompile(t *testing.T) {
	rs, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	rc := newRuleCompiler()
	n := 0
	for _, r := range rs {
		for _, c := range siteConditions(r) {
			src, isScore := orTrue(c.expr), c.name == "impact_score"
			opts := []expr.Option{factsEnv, expr.AllowUndefinedVariables()}
			compileBatch := rc.compileScore
			if !isScore {
				opts = append(opts, expr.AsBool())
				compileBatch = rc.compileCond
			}
			want, err := expr.Compile(src, opts...)
			if err != nil {
				t.Fatalf("%s %s: %v", r.ID, c.field, err)
			}
			got, err := compileBatch(src)
			if err != nil {
				t.Fatalf("%s %s: batch: %v", r.ID, c.field, err)
			}
			if got.Disassemble() != want.Disassemble() {
				t.Errorf("%s %s: the batch's program differs:\n%s\nexpr.Compile's:\n%s", r.ID, c.field, got.Disassemble(), want.Disassemble())
			}
			n++
		}
	}
	if n < len(rs)*2 {
		t.Fatalf("compared %d expressions of %d rules", n, len(rs))
	}
	for _, bad := range []string{"size_bytes >", "len(1, 2)", `"a" + `, "x ?? "} {
		_, want := expr.Compile(bad, factsEnv, expr.AllowUndefinedVariables(), expr.AsBool())
		_, got := rc.compileCond(bad)
		if want == nil || got == nil || got.Error() != want.Error() {
			t.Errorf("%q: batch error %v, expr.Compile's %v", bad, got, want)
		}
	}
}
