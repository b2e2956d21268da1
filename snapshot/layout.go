package snapshot

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/diskdoctor/diskdoctor/machine"
	"github.com/diskdoctor/diskdoctor/machine/manifest"
)

// EntryType is the kind of a recorded path.
type EntryType int

// Kinds of entries of a recording.
const (
	EntryDir EntryType = iota
	EntryFile
	EntryLink
)

// Entry is one path of a recording, relative to its root ("sys/block/sda").
type Entry struct {
	Path    string
	Type    EntryType
	Data    []byte // file content; nil for a placeholder (listed, never read)
	Target  string // link target, always relative
	read    bool
	queued  int  // 1 + its index in its collector's reads to do; 0: none
	dropped bool // Collect keeps another entry of its path, or none
}

// Recording is a recorded machine in memory: the entries of the fixture
// layout, the commands, and what could not be recorded.
type Recording struct {
	Entries  []*Entry // sorted by path: parents before children
	Commands []RecordedCommand
	// Unreadable lists paths and commands that the probes used but that
	// could not be read for the snapshot, with the reason.
	Unreadable []string
	Redacted   bool
	// RedactedValues counts distinct values replaced, by kind (serial, wwn, host).
	RedactedValues map[string]int
	Kernel         string
}

// RecordedCommand is one entry of commands/manifest.yaml with its output.
type RecordedCommand struct {
	Argv    []string
	Stdout  []byte
	Stderr  []byte
	Exit    int
	Timeout bool
	Missing bool
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// CommandFiles lays the commands out as commands/manifest.yaml and the
// output files beside it: a map from path (relative to the recording's
// root) to content.
func (rec *Recording) CommandFiles() (map[string][]byte, error) {
	files := map[string][]byte{}
	var entries []manifest.Entry
	for i, c := range rec.Commands {
		m := manifest.Entry{Argv: c.Argv, Timeout: c.Timeout, Missing: c.Missing}
		if !c.Timeout && !c.Missing {
			base := fmt.Sprintf("%03d-%s", i+1, strings.Trim(unsafeName.ReplaceAllString(strings.Join(c.Argv, "_"), "-"), "-."))
			if len(base) > 80 {
				base = base[:80]
			}
			m.Stdout, m.Exit = base+".out", c.Exit
			files["commands/"+m.Stdout] = nonNilBytes(c.Stdout)
			if len(c.Stderr) > 0 {
				m.Stderr = base + ".err"
				files["commands/"+m.Stderr] = c.Stderr
			}
		}
		entries = append(entries, m)
	}
	var buf bytes.Buffer
	buf.WriteString("# Recorded by diskdoctor snapshot: every command the probes ran, matched by exact argv.\n")
	if err := manifest.Write(&buf, entries); err != nil {
		return nil, err
	}
	files["commands/manifest.yaml"] = buf.Bytes()
	return files, nil
}

// MetaFile is the name of the description at a snapshot's root.
const MetaFile = "diskdoctor-snapshot.yaml" // manifest.MetaPath

// walk calls f for every entry of the layout, parents first: the metadata,
// the recorded paths, then commands/.
func (rec *Recording) walk(meta []byte, f func(e *Entry) error) error {
	// The commands' files (a YAML manifest of two commands or so per
	// disk) are laid out while the paths are written.
	type laidOut struct {
		files map[string][]byte
		err   error
	}
	commands := make(chan laidOut, 1)
	go func() {
		files, err := rec.CommandFiles()
		commands <- laidOut{files, err}
	}()
	if meta != nil {
		if err := f(&Entry{Path: MetaFile, Type: EntryFile, Data: meta}); err != nil {
			return err
		}
	}
	for _, e := range rec.Entries {
		if e.Path == "commands" || strings.HasPrefix(e.Path, "commands/") || e.Path == MetaFile {
			continue // the recording's own commands/ wins
		}
		if e.Type == EntryFile && e.Data == nil {
			e.Data = []byte{}
		}
		if err := f(e); err != nil {
			return err
		}
	}
	c := <-commands
	files, err := c.files, c.err
	if err != nil {
		return err
	}
	if err := f(&Entry{Path: "commands", Type: EntryDir}); err != nil {
		return err
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if err := f(&Entry{Path: n, Type: EntryFile, Data: files[n]}); err != nil {
			return err
		}
	}
	return nil
}

// Stats counts a recording's entries and bytes.
func (rec *Recording) Stats() (files, dirs, links int, bytes int64) {
	for _, e := range rec.Entries {
		switch e.Type {
		case EntryDir:
			dirs++
		case EntryLink:
			links++
		default:
			files++
			bytes += int64(len(e.Data))
		}
	}
	return
}

// Meta is diskdoctor-snapshot.yaml.
type Meta struct {
	Format     string         `yaml:"format"`
	Version    string         `yaml:"diskdoctor"`
	Created    string         `yaml:"created"`
	Source     string         `yaml:"source"`
	Kernel     string         `yaml:"kernel,omitempty"`
	Redacted   bool           `yaml:"redacted"`
	Values     map[string]int `yaml:"redacted_values,omitempty"`
	Paths      int            `yaml:"paths"`
	Commands   int            `yaml:"commands"`
	Unreadable []string       `yaml:"unreadable,omitempty"`
	Note       string         `yaml:"note,omitempty"`
}

// Format identifies the snapshot layout version (manifest.Format: the
// reader checks it).
const Format = manifest.Format

// Meta describes the recording for diskdoctor-snapshot.yaml.
func (rec *Recording) Meta(version, source string, created time.Time) Meta {
	m := Meta{Format: Format, Version: version, Created: created.UTC().Format(time.RFC3339), Source: source,
		Kernel: rec.Kernel, Redacted: rec.Redacted, Values: rec.RedactedValues, Paths: len(rec.Entries), Commands: len(rec.Commands),
		Unreadable: rec.Unreadable}
	if rec.Redacted {
		m.Note = "serial numbers, WWNs, MAC addresses, the kernel log's IP addresses and the host name are replaced by stable tokens (SERIAL0001, WWN0001, MAC0001, IP0001, redacted-host) in contents and names"
	}
	return m
}

// Marshal renders the metadata as YAML.
func (m Meta) Marshal() []byte {
	b, err := yaml.Marshal(m)
	if err != nil {
		return []byte("format: " + strconv.Quote(Format) + "\n")
	}
	return b
}

// ReadMeta reads diskdoctor-snapshot.yaml at the root of a recorded
// machine (through the Host, as every read of it); a fixture directory has
// none (nil, nil).
func ReadMeta(ctx context.Context, h *machine.Host) (*Meta, error) {
	b, err := h.ReadFile(ctx, "/"+MetaFile)
	if errors.Is(err, machine.ErrNotAvailable) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var m Meta
	if err := yaml.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %w: %w", MetaFile, machine.ErrParse, err)
	}
	return &m, nil
}
