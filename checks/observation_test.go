package checks

import (
	"reflect"
	"testing"
)

// factMap is an observation's facts as a map, for tests that look them up
// by name.
func factMap(o *Observation) map[string]any {
	m := make(map[string]any, len(o.Facts()))
	for _, f := range o.Facts() {
		m[f.Name] = f.Value
	}
	return m
}

// TestObservationIsAMapWithOrder holds the list to what the map it replaced
// did (a fact set again keeps one entry with the last value; its evidence
// accumulates; evidence may come before the value) and to the order the
// rules merge in (first set first).
func TestObservationIsAMapWithOrder(t *testing.T) {
	o := NewObservation("c", KindDevice, "sda")
	o.AddEvidence("b", Evidence{"/sys/b", "1"})
	o.Set("a", 1, Evidence{"/sys/a", "1"})
	o.Set("b", true)
	o.Set("a", 2, Evidence{"/sys/a", "2"})
	o.Set("c", nil)
	if got, want := o.Facts(), []Fact{{"a", 2}, {"b", true}, {"c", nil}}; !reflect.DeepEqual(got, want) {
		t.Errorf("facts %v, want %v", got, want)
	}
	if v, ok := o.Lookup("c"); !ok || v != nil {
		t.Errorf("c: %v %v, want nil set", v, ok)
	}
	if v, ok := o.Lookup("d"); ok || v != nil || o.Get("d") != nil {
		t.Errorf("d: %v %v, want unset", v, ok)
	}
	if got, want := o.EvidenceOf("a"), []Evidence{{"/sys/a", "1"}, {"/sys/a", "2"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("evidence of a %v, want %v", got, want)
	}
	if got, want := o.EvidenceOf("b"), []Evidence{{"/sys/b", "1"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("evidence of b %v, want %v", got, want)
	}
	if o.EvidenceOf("c") != nil || !o.HasEvidence() || NewObservation("c", KindHost, "host").HasEvidence() {
		t.Error("evidence of a derived fact, or HasEvidence wrong")
	}
}

// FactMap is factMap for the package's external tests.
var FactMap = factMap

// TestObservationEvidenceDoesNotShareTheCallersRoom: evidence added later
// to a fact does not write into the spare room of the slice a caller gave,
// nor does the caller's appending change what the observation holds.
func TestObservationEvidenceDoesNotShareTheCallersRoom(t *testing.T) {
	o := NewObservation("c", KindDevice, "sda")
	ev := make([]Evidence, 1, 4)
	ev[0] = Evidence{"/a", "1"}
	o.Set("x", 1, ev...)
	o.AddEvidence("x", Evidence{"/b", "2"})
	ev = append(ev, Evidence{"/caller", "3"})
	if got, want := o.EvidenceOf("x"), []Evidence{{"/a", "1"}, {"/b", "2"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("evidence %v, want %v", got, want)
	}
	if ev[1] != (Evidence{"/caller", "3"}) {
		t.Errorf("the caller's slice was written: %v", ev)
	}
}
