package rules

import (
	"errors"
	"fmt"
	"text/template"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/checker"
	"github.com/expr-lang/expr/compiler"
	"github.com/expr-lang/expr/conf"
	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/optimizer"
	"github.com/expr-lang/expr/vm"
)

// ruleCompiler compiles a batch of rules (the built-ins, or one site
// file): the expression language's configuration and the templates'
// function table are made once for the batch. expr.Compile makes a
// configuration (its table of built-in functions) for every expression,
// and a template made with template.New registers the functions again for
// every text; a batch shares them. It is used by one goroutine at a time.
type ruleCompiler struct {
	// cond compiles conditions (they must give a bool), score impact
	// scores (a number).
	cond, score *conf.Config
	// texts is the template set every text of the batch joins; a text is
	// kept by its own *Template, so that two texts of one name ("impact"
	// of two rules) do not meet.
	texts *template.Template
}

func newRuleCompiler() *ruleCompiler {
	return &ruleCompiler{
		cond:  exprConfig(expr.AsBool()),
		score: exprConfig(),
		texts: template.New("").Funcs(templateFuncs).Option("missingkey=zero"),
	}
}

// exprConfig is the configuration expr.Compile makes from its options, for
// a rule's facts (factsEnv, undefined names allowed).
func exprConfig(extra ...expr.Option) *conf.Config {
	c := conf.CreateNew()
	for _, op := range append([]expr.Option{factsEnv, expr.AllowUndefinedVariables()}, extra...) {
		op(c)
	}
	c.Check()
	return c
}

// compileExpr is expr.Compile's parse, check, optimize and compile with the
// batch's configuration.
func compileExpr(c *conf.Config, s string) (*vm.Program, error) {
	tree, err := checker.ParseCheck(s, c)
	if err != nil {
		return nil, err
	}
	if c.Optimize {
		if err := optimizer.Optimize(&tree.Node, c); err != nil {
			var fe *file.Error
			if errors.As(err, &fe) {
				return nil, fe.Bind(tree.Source)
			}
			return nil, err
		}
	}
	return compiler.Compile(tree, c)
}

func (rc *ruleCompiler) compileCond(s string) (*vm.Program, error) { return compileExpr(rc.cond, s) }

func (rc *ruleCompiler) compileScore(s string) (*vm.Program, error) { return compileExpr(rc.score, s) }

func (rc *ruleCompiler) compileTemplate(name, s string) (*template.Template, error) {
	t, err := rc.texts.New(name).Parse(s)
	if err != nil {
		return nil, fmt.Errorf("%s template: %w", name, err)
	}
	return t, nil
}
