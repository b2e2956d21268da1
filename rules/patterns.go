package rules

import (
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
)

// Bounds of the datasheet and firmware tables. A table is a file an
// administrator (or a recorded machine, which may be hostile) gives: Go's
// regexp runs in time linear in its input, but compiling a pattern and
// matching every drive model against it cost memory and time in
// proportion to the pattern's compiled program, so a table is refused
// before a pattern can cost more than a real table ever needs. The
// shipped tables (rules/datasheets.yaml, rules/firmware.yaml) hold about
// eighty patterns of at most 113 bytes and 87 instructions.
const (
	// maxPatternBytes: a pattern names a few model numbers.
	maxPatternBytes = 1024
	// maxPatternInsts bounds one pattern's compiled program
	// (regexp/syntax.Prog instructions).
	maxPatternInsts = 2000
	// maxTableInsts bounds the programs of every pattern loaded, the
	// shipped tables and every file together: each device's model is
	// matched against all of them.
	maxTableInsts = 50000
	// maxTableEntries bounds the entries (models, controllers, classes,
	// firmware advisories) of every table loaded, the shipped ones and
	// every file together.
	maxTableEntries = 5000
	// maxTableBytes bounds the bytes of every file given, together (each
	// is also bounded by maxDatasheetsBytes).
	maxTableBytes = 8 << 20
)

// errTooLarge marks a table refused for its size, not its syntax.
var errTooLarge = errors.New("refused")

// compilePattern compiles a table's pattern after bounding its length
// and its compiled size: regexp/syntax parses it and compiles the
// program, whose instructions are counted before regexp.Compile builds
// its matchers. It returns the instruction count for the table's total.
func compilePattern(p string) (*regexp.Regexp, int, error) {
	if len(p) > maxPatternBytes {
		return nil, 0, fmt.Errorf("%w: pattern of %d bytes, more than %d", errTooLarge, len(p), maxPatternBytes)
	}
	// The flags regexp.Compile uses (regexp.go: compile(expr, syntax.Perl, false)).
	parsed, err := syntax.Parse(p, syntax.Perl)
	if err != nil {
		return nil, 0, err
	}
	prog, err := syntax.Compile(parsed.Simplify())
	if err != nil {
		return nil, 0, err
	}
	n := len(prog.Inst)
	if n > maxPatternInsts {
		return nil, 0, fmt.Errorf("%w: pattern compiles to %d instructions, more than %d", errTooLarge, n, maxPatternInsts)
	}
	re, err := regexp.Compile(p)
	return re, n, err
}

// tableCost is what the tables loaded so far hold, against the bounds.
type tableCost struct {
	bytes, entries, insts int
}

// charge adds a file's table to the cost, or refuses it naming the bound
// it would cross.
func (c *tableCost) charge(size int, t *Datasheets) error {
	n := tableCost{bytes: c.bytes + size, insts: c.insts}
	n.entries = c.entries + len(t.Models) + len(t.Controllers) + len(t.Classes) + len(t.Firmware) + len(t.Cloud)
	for _, m := range append(append([]*Datasheet(nil), t.Models...), t.Controllers...) {
		n.insts += m.insts
	}
	for _, a := range t.Firmware {
		n.insts += a.insts
	}
	switch {
	case n.bytes > maxTableBytes:
		return fmt.Errorf("%w: the datasheet files together would hold %d bytes, more than %d", errTooLarge, n.bytes, maxTableBytes)
	case n.entries > maxTableEntries:
		return fmt.Errorf("%w: the datasheet tables together would hold %d entries, more than %d", errTooLarge, n.entries, maxTableEntries)
	case n.insts > maxTableInsts:
		return fmt.Errorf("%w: the datasheet patterns together would compile to %d instructions, more than %d", errTooLarge, n.insts, maxTableInsts)
	}
	*c = n
	return nil
}
