package checks

import "slices"

// Evidence is where a fact came from: a machine path, a command, a log line.
type Evidence struct {
	Source string `json:"source"`
	Value  string `json:"value"`
}

// Kinds of subject.
const (
	KindDevice = "device"
	KindHost   = "host"
	KindPool   = "pool"
	// KindController is a RAID controller, for what belongs to no volume
	// (an empty controller's cache module, a failed unassigned drive),
	// named as its tool addresses it: slot=0, /c0, a0.
	KindController = "controller"
	// KindFilesystem is a mounted filesystem, named by its mount point,
	// or the server of a network filesystem as the kernel log names it.
	KindFilesystem = "filesystem"
)

// Observation is what one check saw about one subject.
//
// Its facts are a list, not a map: a check sets a few dozen facts on each
// subject, there are several observations per disk, and the rules merge a
// subject's observations into one map anyway. A map per observation (and
// one for its evidence) would be built only to be copied once; a linear
// search of a few dozen names costs less than hashing them.
type Observation struct {
	Check   string
	Subject string // sda, nvme0n1, "host", a pool name
	Kind    string
	facts   []Fact
	// evidence by fact name, in the order it was given; a fact may have
	// evidence before it has a value (a loop gathers both).
	evidence EvidenceIndex
}

// Fact is one named value an observation holds.
type Fact struct {
	Name  string
	Value any
}

// EvidenceIndex is what an observation's facts were read from, by fact.
type EvidenceIndex []factEvidence

type factEvidence struct {
	fact string
	evs  []Evidence
}

// Of is what a fact was read from (nil for a derived fact).
func (x EvidenceIndex) Of(fact string) []Evidence {
	for i := range x {
		if x[i].fact == fact {
			return x[i].evs
		}
	}
	return nil
}

// NewObservation starts an observation.
func NewObservation(check, kind, subject string) *Observation {
	return &Observation{Check: check, Kind: kind, Subject: subject}
}

// Set records a fact with the evidence it came from (none for derived
// facts). Setting a fact again replaces its value and adds to its evidence.
func (o *Observation) Set(fact string, v any, ev ...Evidence) {
	if i := o.index(fact); i >= 0 {
		o.facts[i].Value = v
	} else {
		o.facts = append(o.facts, Fact{Name: fact, Value: v})
	}
	o.AddEvidence(fact, ev...)
}

func (o *Observation) index(fact string) int {
	for i := range o.facts {
		if o.facts[i].Name == fact {
			return i
		}
	}
	return -1
}

// Get is the value of a fact, nil if it was not set.
func (o *Observation) Get(fact string) any {
	v, _ := o.Lookup(fact)
	return v
}

// Lookup is the value of a fact and whether it was set.
func (o *Observation) Lookup(fact string) (any, bool) {
	if i := o.index(fact); i >= 0 {
		return o.facts[i].Value, true
	}
	return nil, false
}

// Facts are the observation's facts in the order they were first set. The
// slice is the observation's own: read it, do not change it.
func (o *Observation) Facts() []Fact { return o.facts }

// AddEvidence adds to what a fact was read from. The observation keeps ev
// (Set's too): a caller does not change it afterwards.
func (o *Observation) AddEvidence(fact string, ev ...Evidence) {
	if len(ev) == 0 {
		return
	}
	for i := range o.evidence {
		if o.evidence[i].fact == fact {
			o.evidence[i].evs = append(o.evidence[i].evs, ev...)
			return
		}
	}
	// Clipped: a later AddEvidence appends to a copy, never into the
	// room left behind the caller's slice.
	o.evidence = append(o.evidence, factEvidence{fact: fact, evs: slices.Clip(ev)})
}

// EvidenceOf is what a fact was read from (nil for a derived fact).
func (o *Observation) EvidenceOf(fact string) []Evidence { return o.evidence.Of(fact) }

// Evidence is every fact's evidence. It stays valid, and the same, while
// the observation is not changed; it does not keep the facts alive.
func (o *Observation) Evidence() EvidenceIndex { return o.evidence }

// HasEvidence reports whether any fact has evidence.
func (o *Observation) HasEvidence() bool { return len(o.evidence) > 0 }
