package manifest

import (
	"io"

	"go.yaml.in/yaml/v3"
)

// Write writes entries as commands/manifest.yaml, in the form Parse reads
// (yaml.v3, indented by 2).
func Write(w io.Writer, entries []Entry) error {
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(entries); err != nil {
		return err
	}
	return enc.Close()
}
