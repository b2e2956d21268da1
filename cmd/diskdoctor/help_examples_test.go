package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The recorded machines --help and bench --help show are paths of the
// installed package: each is a machine packaging/build-deb.sh ships into
// /usr/share/diskdoctor/examples/, and replays from the source tree's copy.
// No help shows a fixtures/ path, which does not exist after apt install.
func TestHelpShowsInstalledExamples(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(fixturesDir, "..", "packaging", "build-deb.sh"))
	if err != nil {
		t.Fatal(err)
	}
	loop := regexp.MustCompile(`(?m)^for m in ([^;]+); do\n\tcp -R "fixtures/\$m" "\$work/examples/"`).FindSubmatch(b)
	if loop == nil {
		t.Fatal("packaging/build-deb.sh: no loop that copies fixtures into examples/")
	}
	shipped := strings.Fields(string(loop[1]))
	example := regexp.MustCompile(`/usr/share/diskdoctor/examples/([A-Za-z0-9_-]+)`)
	for _, args := range [][]string{{"--help"}, {"bench", "--help"}} {
		var stdout, stderr bytes.Buffer
		if code := run(t.Context(), args, &stdout, &stderr); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr.String())
		}
		help := stdout.String()
		ms := example.FindAllStringSubmatch(help, -1)
		if len(ms) == 0 {
			t.Errorf("%v shows no installed example:\n%s", args, help)
		}
		for _, m := range ms {
			if !slices.Contains(shipped, m[1]) {
				t.Errorf("%v shows %s, which the package does not ship (build-deb.sh ships %v)", args, m[0], shipped)
			}
			if _, err := os.Stat(filepath.Join(fixturesDir, m[1])); err != nil {
				t.Errorf("%v shows %s: no fixtures/%s to ship: %v", args, m[0], m[1], err)
			}
		}
		if regexp.MustCompile(`--root fixtures/`).MatchString(help) {
			t.Errorf("%v shows a --root under fixtures/, absent after apt install:\n%s", args, help)
		}
	}
}
