package snapshot

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// Renamed entries drop the same entries as every path going into a set in
// order would: the first entry to take a path keeps it, whether it was
// renamed to it or had it, on sorted recordings and unsorted ones.
func TestCollisionsAreTheFirstToTakeAPath(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := range 2000 {
		n := 1 + r.IntN(12)
		var es []*Entry
		for i := range n {
			es = append(es, &Entry{Path: fmt.Sprintf("p%02d", i*2)})
		}
		if round%5 == 0 {
			r.Shuffle(len(es), func(i, j int) { es[i], es[j] = es[j], es[i] })
		}
		to := make([]string, n)
		for i, e := range es {
			to[i] = e.Path
			if r.IntN(3) == 0 {
				to[i] = fmt.Sprintf("p%02d", r.IntN(2*n)) // onto a path, its own, or a free one
			}
		}
		got := collisions(es, func(i int) string { return to[i] })
		seen := map[string]bool{}
		for i := range es {
			if want := seen[to[i]]; got[i] != want {
				t.Fatalf("round %d: entry %d (%s -> %s): dropped %v, want %v; renames %v",
					round, i, es[i].Path, to[i], got[i], want, to)
			}
			seen[to[i]] = true
		}
		if !slices.IsSortedFunc(es, byPath) && round%5 != 0 {
			t.Fatal("sorted rounds must be sorted")
		}
	}
}
