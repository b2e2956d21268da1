package checks

import (
	"errors"
	"sort"
	"strings"
	"sync"

	"github.com/diskdoctor/diskdoctor/machine"
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
	reason, hint, pkg := explain(probe, err, env.Opts.ProbeTimeout, env.Host == nil || env.Host.IsLive())
	var te *machine.ToolError
	answered := errors.As(err, &te) && te.Answered
	env.skips.add(Skipped{Check: probe, Reason: reason, Hint: hint, Package: pkg, Answered: answered, NotApplicable: errors.Is(err, machine.ErrNotAvailable)}, subject)
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
	// Answered: a command the recording lacks of a program that answered
	// others there; a report names it among the programs not recorded
	// without a package to install.
	Answered bool `json:"-"`
	// NotApplicable: what the probe reads does not exist on this machine
	// (machine.ErrNotAvailable: the kernel does not expose it, a virtio
	// disk has no SMART, a disk behind a RAID controller is read through
	// the controller), as opposed to what could be read but was not (a
	// tool not installed, no permission, a timeout, output that would not
	// parse). Running again, or as root, does not change it; an alert on
	// skipped checks leaves it out.
	NotApplicable bool `json:"-"`
}

// CheckName is the check or program a skipped entry is of, for a label
// that names it without its arguments: the name up to the first space
// ("smartctl" of "smartctl -x -n standby -j", "trim" of "trim schedule",
// "rule" of "rule NAME"); Check is the probe in full.
func (s Skipped) CheckName() string {
	name, _, _ := strings.Cut(s.Check, " ")
	return name
}

// notAvailable is an error whose text says what is missing and which is
// machine.ErrNotAvailable (a skipped entry that does not apply here)
// without ": not available" appended to its text.
type notAvailable string

func (e notAvailable) Error() string        { return string(e) }
func (e notAvailable) Is(target error) bool { return target == machine.ErrNotAvailable }
