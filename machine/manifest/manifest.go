// Package manifest is the one grammar of a recorded machine's
// commands/manifest.yaml: every command the probes ran, matched by exact
// argv, with the files holding its output. The recorder (snapshot) writes
// it with Write; a recorded Host's runner reads it with Parse.
package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Path is the manifest's place in a recorded machine's root.
const Path = "/commands/manifest.yaml"

// ErrParse: the manifest is not one this grammar reads (machine.ErrParse
// is this error, so that a recorded Host's refusal matches it).
var ErrParse = errors.New("unexpected format")

// Entry is one recorded command of commands/manifest.yaml. Argv is written
// in flow style, as the hand-written manifests have it.
type Entry struct {
	Argv    []string `yaml:"argv,flow"`
	Stdout  string   `yaml:"stdout,omitempty"`
	Stderr  string   `yaml:"stderr,omitempty"`
	Exit    int      `yaml:"exit,omitempty"`
	Timeout bool     `yaml:"timeout,omitempty"`
	Missing bool     `yaml:"missing,omitempty"`
}

// Parse decodes a manifest strictly: an unknown field (a typo in a
// recorded machine) is an error, and so is a document whose aliases would
// expand it far beyond its own size (a "billion laughs" manifest). Every
// error wraps ErrParse.
func Parse(r io.Reader) ([]Entry, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	return parse(b)
}

func parse(b []byte) ([]Entry, error) {
	// An alias is written "*name": without a '*' there is none to expand.
	if bytes.IndexByte(b, '*') >= 0 {
		var doc yaml.Node
		if err := yaml.Unmarshal(b, &doc); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrParse, err)
		}
		if n := expandedSize(&doc, map[*yaml.Node]int{}, 0); n > 2*len(b)+4096 {
			return nil, fmt.Errorf("%w: aliases expand the manifest to more than %d bytes (it has %d); a recorded manifest has no aliases", ErrParse, 2*len(b)+4096, len(b))
		}
	}
	var entries []Entry
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&entries); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%w: %w", ErrParse, err)
	}
	for i, e := range entries {
		if len(e.Argv) == 0 {
			return nil, fmt.Errorf("%w: entry %d has no argv", ErrParse, i+1)
		}
		n := 0
		for _, set := range []bool{e.Stdout != "", e.Timeout, e.Missing} {
			if set {
				n++
			}
		}
		if n != 1 {
			return nil, fmt.Errorf("%w: entry %d (%s) needs exactly one of stdout, timeout, missing", ErrParse, i+1, strings.Join(e.Argv, " "))
		}
		for _, f := range []string{e.Stdout, e.Stderr} {
			if f != "" && (filepath.IsAbs(f) || strings.Contains(f, "..")) {
				return nil, fmt.Errorf("%w: entry %d: output file %q must stay inside commands/", ErrParse, i+1, f)
			}
		}
	}
	return entries, nil
}

// expandedSize is the number of scalar bytes (plus one per node) of the
// document with every alias replaced by what it names, computed once per
// anchor; it saturates instead of overflowing.
func expandedSize(n *yaml.Node, memo map[*yaml.Node]int, depth int) int {
	const sat = 1 << 40
	if n == nil || depth > 10000 {
		return sat
	}
	if v, ok := memo[n]; ok {
		return v
	}
	memo[n] = sat // a cycle counts as infinite
	size := 1 + len(n.Value)
	if n.Kind == yaml.AliasNode {
		size = expandedSize(n.Alias, memo, depth+1)
	}
	for _, c := range n.Content {
		size = min(sat, size+expandedSize(c, memo, depth+1))
	}
	memo[n] = size
	return size
}
