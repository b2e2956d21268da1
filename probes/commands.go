package probes

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// CmdResult is what a command printed and how it ended.
type CmdResult struct {
	Argv   []string
	Stdout []byte
	Stderr []byte
	Exit   int
}

// String is the command line as a person would type it, for evidence.
func (r CmdResult) String() string { return strings.Join(r.Argv, " ") }

// Runner runs commands for a Host.
type Runner interface {
	Run(ctx context.Context, argv []string) (CmdResult, error)
}

// execRunner runs real programs with exec argv; the context deadline kills
// a program that hangs (zpool on a sick pool can block for minutes).
type execRunner struct{}

func (execRunner) Run(ctx context.Context, argv []string) (CmdResult, error) {
	path, err := exec.LookPath(argv[0])
	if err != nil {
		for _, dir := range []string{"/usr/sbin", "/sbin"} {
			if p := filepath.Join(dir, argv[0]); isExecutable(p) {
				path, err = p, nil
				break
			}
		}
		if err != nil {
			return CmdResult{Argv: argv}, &ToolError{Tool: argv[0]}
		}
	}
	cmd := exec.CommandContext(ctx, path, argv[1:]...)
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	// A child that keeps the pipes open must not hold the doctor past the deadline.
	cmd.WaitDelay = time.Second
	err = cmd.Run()
	res := CmdResult{Argv: argv, Stdout: out.Bytes(), Stderr: errb.Bytes()}
	if ctx.Err() != nil {
		return res, fmt.Errorf("%s: %w", res, ctxErr(ctx.Err()))
	}
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		res.Exit = exitErr.ExitCode()
		return res, nil
	}
	return res, err
}

func isExecutable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}

// manifestEntry is one recorded command of commands/manifest.yaml.
type manifestEntry struct {
	Argv    []string `yaml:"argv"`
	Stdout  string   `yaml:"stdout,omitempty"`
	Stderr  string   `yaml:"stderr,omitempty"`
	Exit    int      `yaml:"exit,omitempty"`
	Timeout bool     `yaml:"timeout,omitempty"`
	Missing bool     `yaml:"missing,omitempty"`
}

// recordedRunner replays commands/manifest.yaml: exact argv match; an argv
// the manifest lacks is a missing program.
type recordedRunner struct {
	dir     string
	entries map[string]manifestEntry
}

func argvKey(argv []string) string { return strings.Join(argv, "\x00") }

func loadManifest(root string) (*recordedRunner, error) {
	dir := filepath.Join(root, "commands")
	r := &recordedRunner{dir: dir, entries: map[string]manifestEntry{}}
	b, err := os.ReadFile(filepath.Join(dir, "manifest.yaml"))
	if errors.Is(err, os.ErrNotExist) {
		return r, nil
	}
	if err != nil {
		return nil, err
	}
	entries, err := parseManifest(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "manifest.yaml"), err)
	}
	for _, e := range entries {
		r.entries[argvKey(e.Argv)] = e
	}
	return r, nil
}

func parseManifest(b []byte) ([]manifestEntry, error) {
	var entries []manifestEntry
	if err := yaml.Unmarshal(b, &entries); err != nil {
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

func (r *recordedRunner) Run(ctx context.Context, argv []string) (CmdResult, error) {
	res := CmdResult{Argv: argv}
	e, ok := r.entries[argvKey(argv)]
	switch {
	case !ok || e.Missing:
		return res, &ToolError{Tool: argv[0]}
	case e.Timeout:
		<-ctx.Done()
		return res, fmt.Errorf("%s: %w", res, ctxErr(ctx.Err()))
	}
	var err error
	if res.Stdout, err = os.ReadFile(filepath.Join(r.dir, e.Stdout)); err != nil {
		return res, fmt.Errorf("recorded output of %s: %w", res, err)
	}
	if e.Stderr != "" {
		if res.Stderr, err = os.ReadFile(filepath.Join(r.dir, e.Stderr)); err != nil {
			return res, fmt.Errorf("recorded stderr of %s: %w", res, err)
		}
	}
	res.Exit = e.Exit
	return res, nil
}
