package report

import (
	"bytes"
	"path/filepath"
	"testing"
)

// The text report of the HPE MicroServer is a golden file too: it is what an
// admin reads first.
func TestGoldenTextReport(t *testing.T) {
	const name = "hpe-microserver-writethrough"
	var got bytes.Buffer
	renderText(&got, fixtureReport(t, name), false)
	golden(t, filepath.Join(fixturesDir, name, "expected.txt"), got.Bytes())
}
