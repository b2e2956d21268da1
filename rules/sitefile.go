package rules

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// FileError is a mistake in a file a site wrote (its configuration, its
// own rules), at the line and column where it stands: the doctor refuses
// to run on it (exit 3), as a compiler refuses a source file, because a
// waiver or a rule that silently did not apply is worse than no run.
type FileError struct {
	File         string
	Line, Column int // 0 when unknown (YAML's syntax errors give the line only)
	Msg          string
}

func (e *FileError) Error() string {
	switch {
	case e.Line > 0 && e.Column > 0:
		return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Column, e.Msg)
	case e.Line > 0:
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return e.File + ": " + e.Msg
}

// at is a FileError at node n of file.
func at(file string, n *yaml.Node, format string, a ...any) *FileError {
	e := &FileError{File: file, Msg: fmt.Sprintf(format, a...)}
	if n != nil {
		e.Line, e.Column = n.Line, n.Column
	}
	return e
}

// yamlLine finds "line N" in go-yaml's messages ("yaml: line 3: mapping
// values are not allowed in this context", and each "line N: …" of an
// unmarshal error), the only place it gives a syntax error's position.
var yamlLine = regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`)

// parseYAMLFile parses one YAML document into its node tree; a syntax
// error becomes a FileError at its line.
func parseYAMLFile(file string, b []byte) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, yamlError(file, err)
	}
	if len(doc.Content) == 0 {
		return nil, nil // empty, or comments only
	}
	return doc.Content[0], nil
}

// yamlError is err, a go-yaml error about file, as a FileError with the
// line it names (the first, for an unmarshal error naming several).
func yamlError(file string, err error) error {
	msg := err.Error()
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msg = te.Errors[0]
	}
	if m := yamlLine.FindStringSubmatch(strings.TrimSpace(msg)); m != nil {
		line, _ := strconv.Atoi(m[1])
		return &FileError{File: file, Line: line, Msg: m[2]}
	}
	return &FileError{File: file, Msg: strings.TrimPrefix(msg, "yaml: ")}
}

// mappingPairs is a mapping node's key and value nodes, in order, each
// key passed by checkKey (an unknown key is a mistake: a misspelt "reason"
// must not make a waiver without one) and none given twice.
func mappingPairs(file string, n *yaml.Node, what string, checkKey func(k *yaml.Node) error) ([][2]*yaml.Node, error) {
	if n.Kind != yaml.MappingNode {
		return nil, at(file, n, "%s must be a mapping (key: value)", what)
	}
	var out [][2]*yaml.Node
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if err := checkKey(k); err != nil {
			return nil, err
		}
		if seen[k.Value] {
			return nil, at(file, k, "%s: %q given twice", what, k.Value)
		}
		seen[k.Value] = true
		out = append(out, [2]*yaml.Node{k, v})
	}
	return out, nil
}

// keysOf is a mappingPairs key check that allows the given keys.
func keysOf(file, what string, allowed ...string) func(*yaml.Node) error {
	return func(k *yaml.Node) error {
		if slices.Contains(allowed, k.Value) {
			return nil
		}
		return at(file, k, "%s: unknown key %q (known: %s)", what, k.Value, strings.Join(allowed, ", "))
	}
}

// scalar is a scalar node's text, or an error naming what it should be.
func scalar(file string, n *yaml.Node, what string) (string, error) {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		return "", at(file, n, "%s must be a single value", what)
	}
	return n.Value, nil
}
