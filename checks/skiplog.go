package checks

import (
	"sort"
	"sync"
)

// skipLog groups skipped probes by (check, reason), so a missing hdparm is
// one entry naming every disk it could not ask, not one entry per disk.
type skipLog struct {
	mu      sync.Mutex
	entries map[string]*Skipped
}

func newSkipLog() skipLog { return skipLog{entries: map[string]*Skipped{}} }

func (s *skipLog) add(sk Skipped, subject string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := sk.Check + "\x00" + sk.Reason
	e, ok := s.entries[k]
	if !ok {
		e = &sk
		s.entries[k] = e
	}
	if subject != "" {
		for _, x := range e.Subjects {
			if x == subject {
				return
			}
		}
		e.Subjects = append(e.Subjects, subject)
	}
}

func (s *skipLog) list() []Skipped {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Skipped, 0, len(s.entries))
	for _, e := range s.entries {
		sortNatural(e.Subjects)
		out = append(out, *e)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Check != out[j].Check {
			return out[i].Check < out[j].Check
		}
		return out[i].Reason < out[j].Reason
	})
	return out
}

// Skip records a probe that could not run, with a hint that would make it
// work. subject may be "" for host-wide probes.
func (env *Env) Skip(probe, subject string, err error) {
	reason, hint, pkg := explain(probe, err, env.Opts.ProbeTimeout)
	env.skips.add(Skipped{Check: probe, Reason: reason, Hint: hint, Package: pkg}, subject)
}

func (env *Env) skipped() []Skipped { return env.skips.list() }

// Skipped is something the doctor could not examine, why, and how to make
// it work.
type Skipped struct {
	Check    string   `json:"check"`
	Reason   string   `json:"reason"`
	Hint     string   `json:"hint"`
	Subjects []string `json:"subjects,omitempty"`
	// Package is the Debian package of a program that is not there (on
	// this machine, or on the recorded one), for a report to name the
	// packages of several such entries at once.
	Package string `json:"-"`
}
