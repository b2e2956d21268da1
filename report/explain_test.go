package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/diskdoctor/diskdoctor/rules"
)

// TestExplainIsForPeople: every rule explained in words, with no template
// text and no Markdown escapes, within the width; commands as a report
// prints them (issue #11).
func TestExplainIsForPeople(t *testing.T) {
	rs, err := rules.Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		var b bytes.Buffer
		if err := Explain(&b, r, 80, false); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		for _, bad := range []string{"{{", "}}", `\|`, "**", "`"} {
			if strings.Contains(out, bad) {
				t.Errorf("%s: %q in the explanation:\n%s", r.ID, bad, out)
			}
		}
		for _, want := range []string{r.Title, "Why it matters", "When it holds"} {
			if !strings.Contains(strings.Join(strings.Fields(out), " "), want) {
				t.Errorf("%s: no %q", r.ID, want)
			}
		}
		checkWidth(t, r.ID, b.Bytes(), 80)
	}
	var b bytes.Buffer
	for _, r := range rs {
		if r.ID == "write-cache-disabled" {
			_ = Explain(&b, r, 80, false)
		}
	}
	// The rules file's lines at column 0, byte for byte, as a report
	// prints a here-document's body.
	if !strings.Contains(b.String(), "\nACTION==\"add|change\", SUBSYSTEM==\"block\", \\\n") || !strings.Contains(b.String(), "\nEOF\n") || !strings.Contains(b.String(), "hdparm -W1 DEV_PATH") {
		t.Errorf("write-cache-disabled: the commands are not as a report prints them:\n%s", b.String())
	}
}
