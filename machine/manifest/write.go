package manifest

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Write writes entries as commands/manifest.yaml, in the form Parse reads.
func Write(w io.Writer, entries []Entry) error {
	var buf bytes.Buffer
	if err := writeManifest(&buf, entries); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// writeManifest writes manifest as yaml.v3 encodes it (with an indent of
// 2), without encoding most of it through yaml.v3, whose encoder builds a
// node per scalar of a manifest with two commands per disk. A word that
// is plain in any YAML (a command, an option, a device path) is written as
// it is; any other scalar as yaml.v3 writes it, once per distinct value.
// TestWriteManifestIsYAMLs compares the two.
func writeManifest(buf *bytes.Buffer, manifest []Entry) error {
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
		q, pre := strings.CutPrefix(string(b), "a: [")
		q, suf := strings.CutSuffix(q, "]\n")
		if err != nil || !pre || !suf {
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
func encodeManifest(buf *bytes.Buffer, manifest []Entry) error {
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
