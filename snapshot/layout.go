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

	"gopkg.in/yaml.v3"

	"github.com/diskdoctor/diskdoctor/probes"
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

// manifestOut is manifestEntry with argv written in flow style, as the
// hand-written manifests have it.
type manifestOut struct {
	Argv    []string `yaml:"argv,flow"`
	Stdout  string   `yaml:"stdout,omitempty"`
	Stderr  string   `yaml:"stderr,omitempty"`
	Exit    int      `yaml:"exit,omitempty"`
	Timeout bool     `yaml:"timeout,omitempty"`
	Missing bool     `yaml:"missing,omitempty"`
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// CommandFiles lays the commands out as commands/manifest.yaml and the
// output files beside it: a map from path (relative to the recording's
// root) to content.
func (rec *Recording) CommandFiles() (map[string][]byte, error) {
	files := map[string][]byte{}
	var manifest []manifestOut
	for i, c := range rec.Commands {
		m := manifestOut{Argv: c.Argv, Timeout: c.Timeout, Missing: c.Missing}
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
		manifest = append(manifest, m)
	}
	var buf bytes.Buffer
	buf.WriteString("# Recorded by diskdoctor snapshot: every command the probes ran, matched by exact argv.\n")
	if err := writeManifest(&buf, manifest); err != nil {
		return nil, err
	}
	files["commands/manifest.yaml"] = buf.Bytes()
	return files, nil
}

// writeManifest writes manifest as yaml.v3 encodes it (with an indent of
// 2), without encoding most of it through yaml.v3: a 1,000-disk machine's
// 2,000 commands took it 28 ms. A word that is plain in any YAML (a
// command, an option, a device path) is written as it is; any other
// scalar as yaml.v3 writes it, once per distinct value.
// TestWriteManifestIsYAMLs compares the two.
func writeManifest(buf *bytes.Buffer, manifest []manifestOut) error {
	if len(manifest) == 0 {
		buf.WriteString("[]\n")
		return nil
	}
	quoted := map[string]string{}
	scalar := func(v string) (string, error) {
		if plainWord(v) {
			return v, nil
		}
		if q, ok := quoted[v]; ok {
			return q, nil
		}
		b, err := yaml.Marshal(struct {
			A []string `yaml:"a,flow"`
		}{[]string{v}})
		q, ok := strings.CutPrefix(string(b), "a: [")
		if q, ok = strings.CutSuffix(q, "]\n"); err != nil || !ok {
			return "", fmt.Errorf("manifest: %q: %v", v, err)
		}
		quoted[v] = q
		return q, nil
	}
	start := buf.Len()
	for _, m := range manifest {
		if len(m.Argv) == 0 {
			buf.Truncate(start) // yaml.v3 writes "[]": the whole manifest its way
			return encodeManifest(buf, manifest)
		}
		buf.WriteString("- argv: [")
		for i, a := range m.Argv {
			q, err := scalar(a)
			if err != nil {
				return err
			}
			if i > 0 {
				buf.WriteString(", ")
			}
			buf.WriteString(q)
		}
		buf.WriteString("]\n")
		for _, f := range [...]struct{ k, v string }{{"stdout", m.Stdout}, {"stderr", m.Stderr}} {
			if f.v == "" {
				continue
			}
			if !plainWord(f.v) {
				buf.Truncate(start)
				return encodeManifest(buf, manifest)
			}
			buf.WriteString("  " + f.k + ": " + f.v + "\n")
		}
		if m.Exit != 0 {
			buf.WriteString("  exit: " + strconv.Itoa(m.Exit) + "\n")
		}
		if m.Timeout {
			buf.WriteString("  timeout: true\n")
		}
		if m.Missing {
			buf.WriteString("  missing: true\n")
		}
	}
	return nil
}

// encodeManifest is yaml.v3's encoding of manifest.
func encodeManifest(buf *bytes.Buffer, manifest []manifestOut) error {
	enc := yaml.NewEncoder(buf)
	enc.SetIndent(2)
	if err := enc.Encode(manifest); err != nil {
		return err
	}
	return enc.Close()
}

// plainWord reports a scalar every YAML writes plain and reads back as
// the same string (on one line, however long: it has no space to fold
// at): letters, digits, '/', '_', '.' and '-', starting with a
// letter or '/', or with '-' and a letter (an option), or with digits and
// '-' (an output file's name, 001-dmesg.out), and no word YAML 1.1 reads
// as a boolean or null.
func plainWord(v string) bool {
	if v == "" {
		return false
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '/' || c == '_' || c == '.' || c == '-') {
			return false
		}
	}
	switch c := v[0]; {
	case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '/':
	case c == '-':
		if len(v) < 2 || !(v[1] >= 'a' && v[1] <= 'z' || v[1] >= 'A' && v[1] <= 'Z') {
			return false
		}
	case c >= '0' && c <= '9':
		// 001-dmesg.out: digits, a dash, and a letter after it somewhere.
		i := strings.IndexByte(v, '-')
		if i < 1 || strings.TrimLeft(v[:i], "0123456789") != "" || !strings.ContainsAny(v[i:], "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") {
			return false
		}
	default:
		return false
	}
	switch strings.ToLower(v) {
	case "y", "n", "yes", "no", "on", "off", "true", "false", "null":
		return false
	}
	return true
}

// MetaFile is the name of the description at a snapshot's root.
const MetaFile = "diskdoctor-snapshot.yaml"

// walk calls f for every entry of the layout, parents first: the metadata,
// the recorded paths, then commands/.
func (rec *Recording) walk(meta []byte, f func(e *Entry) error) error {
	// The commands' files (a YAML manifest of 2,000 commands on a
	// 1,000-disk machine) are laid out while the paths are written.
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

// Format identifies the snapshot layout version.
const Format = "diskdoctor-snapshot/v1"

// Meta describes the recording for diskdoctor-snapshot.yaml.
func (rec *Recording) Meta(version, source string, created time.Time) Meta {
	m := Meta{Format: Format, Version: version, Created: created.UTC().Format(time.RFC3339), Source: source,
		Kernel: rec.Kernel, Redacted: rec.Redacted, Values: rec.RedactedValues, Paths: len(rec.Entries), Commands: len(rec.Commands),
		Unreadable: rec.Unreadable}
	if rec.Redacted {
		m.Note = "serial numbers, WWNs, MAC addresses and the host name are replaced by stable tokens (SERIAL0001, WWN0001, MAC0001, redacted-host) in contents and names"
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
func ReadMeta(ctx context.Context, h *probes.Host) (*Meta, error) {
	b, err := h.ReadFile(ctx, "/"+MetaFile)
	if errors.Is(err, probes.ErrNotAvailable) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var m Meta
	if err := yaml.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %w: %w", MetaFile, probes.ErrParse, err)
	}
	return &m, nil
}
