package main

import (
	"flag"
	"os"
	"testing"

	"github.com/diskdoctor/diskdoctor/internal/fixturetest"
)

var update = flag.Bool("update", false, "rewrite golden files (the fixtures' expected.json is doctor/'s, their text reports report/'s)")

const fixturesDir = "../../fixtures"

// fixtures lists every recorded machine under fixtures/.
func fixtures(t *testing.T) []string { return fixturetest.Machines(t, fixturesDir) }

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

func hasWindow(name string) bool { return fixturetest.HasWindow(fixturesDir, name) }

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	fixturetest.Golden(t, path, got, *update, "./cmd/diskdoctor")
}
