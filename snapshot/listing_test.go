package snapshot

import (
	"io/fs"
	"testing"
	"testing/fstest"
)

// A listing finds each of its names, and none other, whether it was given
// sorted (as ReadDir returns it) or not (sorted then, leaving the given
// slice as it was).
func TestListingLookup(t *testing.T) {
	mfs := fstest.MapFS{"d/b": {}, "d/a": {Mode: fs.ModeDir}, "d/c": {Mode: fs.ModeSymlink}, "d/ab": {}, "d/B": {}}
	sorted, err := fs.ReadDir(mfs, "d")
	if err != nil {
		t.Fatal(err)
	}
	unsorted := []fs.DirEntry{sorted[3], sorted[0], sorted[4], sorted[2], sorted[1]}
	given := append([]fs.DirEntry(nil), unsorted...)
	lc := &listingCache{m: map[string]*listing{}}
	for dir, ents := range map[string][]fs.DirEntry{"/sorted": sorted, "/unsorted": unsorted} {
		l := lc.get(dir, func(l *listing) { l.ents = ents })
		for _, de := range sorted {
			got, ok := l.lookup(de.Name())
			if !ok || got.Name() != de.Name() || got.Type() != de.Type() {
				t.Errorf("%s: %s: got %v, %v", dir, de.Name(), got, ok)
			}
		}
		for _, n := range []string{"", "A", "aa", "bb", "d", "c/"} {
			if got, ok := l.lookup(n); ok {
				t.Errorf("%s: %q found: %v", dir, n, got)
			}
		}
	}
	for i := range given {
		if unsorted[i] != given[i] {
			t.Fatal("the given listing was reordered")
		}
	}
	if empty := lc.get("/empty", func(*listing) {}); empty.err != nil {
		t.Fatal(empty.err)
	} else if _, ok := empty.lookup("a"); ok {
		t.Error("found in an empty listing")
	}
}
