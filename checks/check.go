// Package checks turns probe data into observations: typed facts about a
// device, a pool or the host, each with the evidence it was read from.
// Checks observe; they do not judge (that is rules/).
package checks

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/diskdoctor/diskdoctor/internal/parse"
	"github.com/diskdoctor/diskdoctor/machine"
	"github.com/diskdoctor/diskdoctor/probes/block"
	"github.com/diskdoctor/diskdoctor/probes/system"
)

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
)

// Observation is what one check saw about one subject.
//
// Its facts are a list, not a map: a check sets a few dozen facts on each
// subject, a thousand-disk machine has six observations per disk, and the
// rules merge them into one map per subject anyway. As maps (each with its
// own evidence map) they were the largest allocation of a large run and
// most of its peak heap; a linear search of a few dozen names costs less
// than hashing them.
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

// newObservationSized is NewObservation for a check that sets about facts
// facts on each subject: the list is allocated once instead of grown.
func newObservationSized(check, kind, subject string, facts int) *Observation {
	return &Observation{Check: check, Kind: kind, Subject: subject, facts: make([]Fact, 0, facts)}
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

// Skipped is something the doctor could not examine, why, and how to make
// it work.
type Skipped struct {
	Check    string   `json:"check"`
	Reason   string   `json:"reason"`
	Hint     string   `json:"hint"`
	Subjects []string `json:"subjects,omitempty"`
}

// Check is one pluggable module.
type Check struct {
	Name        string
	Description string
	Run         func(ctx context.Context, env *Env) []*Observation
}

var registry []Check

// Register adds a check; called from init() of each check's file.
func Register(c Check) {
	for _, r := range registry {
		if r.Name == c.Name {
			panic("checks: duplicate check " + c.Name)
		}
	}
	registry = append(registry, c)
}

// All returns the registered checks in registration order.
func All() []Check { return append([]Check(nil), registry...) }

// Options select and tune a run.
type Options struct {
	ProbeTimeout time.Duration
	Devices      []string // judge only these (virtual ones included when named)
	Disabled     []string // check names not to run
	Context      string   // auto, server, desktop, laptop, vm, benchmark
	// Sample is the length of a measuring window (0: configuration only).
	Sample time.Duration
	// Progress is told how far the window has come (a terminal's progress line).
	Progress func(elapsed time.Duration)
	// Inventoried, when set, is told how many block devices the inventory
	// found, as soon as it has (the command sizes its memory by it).
	Inventoried func(devices int)
}

// Result is every observation and skipped entry of a run.
type Result struct {
	Observations []*Observation
	Skipped      []Skipped
	Devices      []*block.Device
	Platform     *system.Platform
	Sample       *Sample // nil without --sample
}

// Run runs every enabled check concurrently against the host.
func Run(ctx context.Context, h *machine.Host, opts Options) (*Result, error) {
	if opts.ProbeTimeout <= 0 {
		opts.ProbeTimeout = 5 * time.Second
	}
	env := newEnv(h, opts)
	env.run = ctx
	disabled := map[string]bool{}
	for _, d := range opts.Disabled {
		disabled[d] = true
	}
	var checks []Check
	for _, c := range registry {
		if !disabled[c.Name] {
			checks = append(checks, c)
		}
	}
	results := make([][]*Observation, len(checks))
	crashes := make([]error, len(checks))
	var wg sync.WaitGroup
	for i, c := range checks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// A check that panics is a bug; the run cannot say what the
			// check would have found, so it ends without a verdict.
			defer func() {
				if r := recover(); r != nil {
					crashes[i] = fmt.Errorf("check %s crashed (a bug in diskdoctor; please report it): %v\n%s", c.Name, r, debug.Stack())
				}
			}()
			results[i] = c.Run(ctx, env)
		}()
	}
	// The checks start with the inventory, not after it: each waits for it
	// where it needs the devices, and what comes first (the kernel log's
	// parsing, the CPU's and the platform's files) runs in the time the
	// inventory's workers leave a core idle.
	devs, invErr := env.Devices(ctx)
	if invErr == nil && opts.Inventoried != nil {
		opts.Inventoried(len(devs))
	}
	wg.Wait()
	if invErr != nil {
		// The inventory is what every device check stands on: without it
		// the machine cannot be examined at all.
		return nil, fmt.Errorf("cannot list block devices: %w", invErr)
	}
	if err := errors.Join(crashes...); err != nil {
		return nil, err
	}
	res := &Result{Skipped: env.skipped()}
	for _, r := range results {
		for _, o := range r {
			if o.Kind == KindSample {
				res.Sample, _ = o.Get("summary").(*Sample)
				continue
			}
			res.Observations = append(res.Observations, o)
		}
	}
	res.Devices, _ = env.Devices(ctx)
	res.Platform, _ = env.Platform(ctx)
	return res, nil
}

func sortNatural(s []string) {
	sort.Slice(s, func(i, j int) bool { return parse.NaturalLess(s[i], s[j]) })
}

func joinNonEmpty(sep string, parts ...string) string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, sep)
}
