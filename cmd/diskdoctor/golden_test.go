package main

import (
	"flag"
	"testing"

	"github.com/diskdoctor/diskdoctor/internal/fixturetest"
)

var update = flag.Bool("update", false, "rewrite golden files (the fixtures' expected.json is doctor/'s, their text reports report/'s)")

const fixturesDir = "../../fixtures"

// fixtures lists every recorded machine under fixtures/.
func fixtures(t *testing.T) []string { return fixturetest.Machines(t, fixturesDir) }

func hasWindow(name string) bool { return fixturetest.HasWindow(fixturesDir, name) }
