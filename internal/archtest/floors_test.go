package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/diskdoctor/diskdoctor"

// floors orders the packages from the machine up (issue #22): a package
// imports only packages on its own floor or below, so that reading the
// machine, parsing it, judging it and presenting it stay in that order.
// internal/ support packages are below all of them.
var floors = []string{"internal", "machine", "probes", "checks", "rules", "report", "doctor", "snapshot diff bench", "cmd"}

// floorExceptions are imports across a floor upwards, each with its reason
// and the work that removes it.
var floorExceptions = map[string]string{}

// floorOf is the floor of a package directory relative to the module root,
// -1 for one the layout does not place.
func floorOf(dir string) int {
	top, _, _ := strings.Cut(dir, "/")
	for i, f := range floors {
		for _, name := range strings.Fields(f) {
			if top == name {
				return i
			}
		}
	}
	return -1
}

// TestFloors fails on a non-test import of a package above the importer's
// floor: machine < probes/* < checks < rules < report < doctor <
// snapshot, diff, bench < cmd. report renders a rules.Report and knows
// nothing of the run that made it; bench renders its own tables with
// report's styles, never the other way.
func TestFloors(t *testing.T) {
	eachSourceFile(t, parser.ImportsOnly, nil, func(_ *token.FileSet, rel string, f *ast.File) {
		dir := path.Dir(rel)
		from := floorOf(dir)
		if from < 0 {
			t.Errorf("%s: package %s has no floor: place it in floors", rel, dir)
			return
		}
		for _, im := range f.Imports {
			ip, _ := strconv.Unquote(im.Path.Value)
			target, ok := strings.CutPrefix(ip, module+"/")
			if !ok {
				continue
			}
			to := floorOf(target)
			if to <= from {
				continue
			}
			key := strings.SplitN(dir, "/", 2)[0] + " -> " + strings.SplitN(target, "/", 2)[0]
			if floorExceptions[key] != "" {
				continue
			}
			t.Errorf("%s imports %s: %s is above %s (floors: %s)", rel, target, target, dir, strings.Join(floors, " < "))
		}
	})
}
