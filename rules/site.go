package rules

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/diskdoctor/diskdoctor/checks"
	"github.com/diskdoctor/diskdoctor/internal/suggest"
	"github.com/diskdoctor/diskdoctor/machine"
)

// SiteFile is a site's configuration of the doctor: the findings it has
// accepted (waivers) and the severities it gives rules. A recorded
// machine's own file is read when it is replayed, so that a snapshot is
// judged as its machine was.
const SiteFile = "/etc/diskdoctor/diskdoctor.yaml"

// maxSiteBytes bounds the site file: a few hundred waivers are tens of
// kilobytes.
const maxSiteBytes = 1 << 20

// Site is a parsed site file. The zero Site (and a nil *Site) waives
// nothing and changes no severity.
type Site struct {
	File     string // where it was read ("" when there is none)
	Waivers  []*Waiver
	Severity map[string]SeverityOverride // by rule id
}

// Waiver accepts a rule's finding on some subjects (all of them when
// Devices is empty), for a reason and possibly until a date: the finding
// is still reported, as waived, but no longer counts towards the verdict,
// the exit status, the Nagios state or the Prometheus severity counts (as
// lynis' skip-test or a goss file's accepted state do).
type Waiver struct {
	Rule string `json:"rule"`
	// Devices name subjects by kernel name (sda, /dev/sda), a
	// /dev/disk/by-id name, a serial number or a WWN; pools and
	// controllers by their names, the host as "host".
	Devices []string `json:"devices,omitempty"`
	Reason  string   `json:"reason"`
	Until   string   `json:"until,omitempty"` // YYYY-MM-DD, the last day it applies
	Source  string   `json:"source"`          // file:line of the entry
	// ends is the first moment it no longer applies (the day after
	// Until, at midnight local time); zero without Until.
	ends time.Time
}

// SeverityOverride is a site's severity for every finding of a rule.
type SeverityOverride struct {
	Severity string
	Source   string // file:line
}

// WaiverState is what became of a waiver in a run: applied (with the
// subjects it covered), expired, or matching no finding (a mistyped device
// or a problem since fixed).
type WaiverState struct {
	Waiver
	State    string   `json:"state"`
	Subjects []string `json:"subjects,omitempty"`
}

// Waiver states.
const (
	WaiverApplied   = "applied"
	WaiverExpired   = "expired"
	WaiverUnmatched = "unmatched"
)

// expired says whether the waiver's last day is behind now.
func (w *Waiver) expired(now time.Time) bool {
	return !w.ends.IsZero() && !now.Before(w.ends)
}

// covers says whether the waiver names subject s (every subject when it
// names none).
func (w *Waiver) covers(s *subject) bool {
	if len(w.Devices) == 0 {
		return true
	}
	for _, d := range w.Devices {
		if subjectNamed(s, d) {
			return true
		}
	}
	return false
}

// subjectNamed says whether name is one of subject s's names: its kernel
// name, a by-id link's name, its serial or its WWN (with or without the
// 0x, naa. or eui. prefix udev and sysfs write, as lsblk -o WWN shows).
func subjectNamed(s *subject, name string) bool {
	name = strings.TrimPrefix(name, "/dev/")
	if name == "" {
		return false
	}
	if s.name == name {
		return true
	}
	if links, ok := s.facts[checks.FactByID].([]string); ok {
		for _, l := range links {
			if path.Base(l) == path.Base(name) {
				return true
			}
		}
	}
	if serial := str(s.facts[checks.FactSerial]); serial != "" && strings.EqualFold(serial, name) {
		return true
	}
	if wwn := normalWWN(str(s.facts[checks.FactWWN])); wwn != "" && wwn == normalWWN(name) {
		return true
	}
	return false
}

func normalWWN(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	for _, p := range []string{"wwn-0x", "0x", "naa.", "eui."} {
		s = strings.TrimPrefix(s, p)
	}
	return s
}

// LoadSite reads the site file: file when it is given (--config, which
// must exist and be the invoker's or root's), else the examined machine's
// SiteFile if it has one. A file another user could have written is not
// used: the second result is the skipped entry that says so.
func LoadSite(ctx context.Context, host *machine.Host, file string, ruleIDs []string) (*Site, *checks.Skipped, error) {
	var b []byte
	var err error
	name := file
	if file != "" {
		b, err = machine.ReadTrustedFile(file, maxSiteBytes, machine.InvokerOwners())
	} else if host != nil {
		name = SiteFile
		if len(host.Glob(SiteFile)) == 0 {
			return &Site{}, nil, nil // none: nothing waived
		}
		b, err = host.ReadTrusted(ctx, SiteFile, maxSiteBytes)
	} else {
		return &Site{}, nil, nil
	}
	var u *machine.UntrustedError
	if errors.As(err, &u) {
		return &Site{}, &checks.Skipped{
			Check:  "config",
			Reason: u.Error() + ": not used (its waivers and severities do not apply), another user could have written it",
			Hint:   "make it writable by root alone: " + u.Fix,
		}, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	site, err := ParseSite(name, b, ruleIDs)
	return site, nil, err
}

// ParseSite parses a site file's text. Every mistake is a FileError at
// its line and column: an unknown key or rule, a waiver without a reason,
// a date that is not YYYY-MM-DD, a severity that is not one.
func ParseSite(file string, b []byte, ruleIDs []string) (*Site, error) {
	site := &Site{File: file, Severity: map[string]SeverityOverride{}}
	root, err := parseYAMLFile(file, b)
	if err != nil || root == nil {
		return site, err
	}
	top, err := mappingPairs(file, root, "the site file", keysOf(file, "the site file", "waive", "severity"))
	if err != nil {
		return nil, err
	}
	// known checks a node naming a rule.
	known := func(n *yaml.Node) error {
		id := n.Value
		if slices.Contains(ruleIDs, id) {
			return nil
		}
		msg := fmt.Sprintf("no rule %q ('diskdoctor rules' lists them)", id)
		if s := suggest.Closest(id, ruleIDs); s != "" {
			msg += fmt.Sprintf("; did you mean %q?", s)
		}
		return at(file, n, "%s", msg)
	}
	for _, kv := range top {
		switch v := kv[1]; kv[0].Value {
		case "waive":
			if v.Kind != yaml.SequenceNode {
				return nil, at(file, v, "waive must be a list of waivers (- rule: …)")
			}
			for _, item := range v.Content {
				w, err := parseWaiver(file, item, known)
				if err != nil {
					return nil, err
				}
				site.Waivers = append(site.Waivers, w)
			}
		case "severity":
			pairs, err := mappingPairs(file, v, "severity", known)
			if err != nil {
				return nil, err
			}
			for _, p := range pairs {
				sev, err := scalar(file, p[1], "severity of "+p[0].Value)
				if err != nil {
					return nil, err
				}
				if severityRank[sev] == 0 {
					return nil, at(file, p[1], "severity of %s: %q is not critical, warning or info", p[0].Value, sev)
				}
				site.Severity[p[0].Value] = SeverityOverride{Severity: sev, Source: fmt.Sprintf("%s:%d", file, p[0].Line)}
			}
		}
	}
	return site, nil
}

func parseWaiver(file string, n *yaml.Node, known func(*yaml.Node) error) (*Waiver, error) {
	pairs, err := mappingPairs(file, n, "a waiver", keysOf(file, "a waiver", "rule", "devices", "reason", "until"))
	if err != nil {
		return nil, err
	}
	w := &Waiver{Source: fmt.Sprintf("%s:%d", file, n.Line)}
	for _, p := range pairs {
		k, v := p[0].Value, p[1]
		switch k {
		case "rule", "reason", "until":
			s, err := scalar(file, v, k)
			if err != nil {
				return nil, err
			}
			switch k {
			case "rule":
				if err := known(v); err != nil {
					return nil, err
				}
				w.Rule = s
			case "reason":
				w.Reason = strings.TrimSpace(s)
			case "until":
				day, err := time.ParseInLocation(time.DateOnly, s, time.Local)
				if err != nil {
					return nil, at(file, v, "until %q: not a date (YYYY-MM-DD, the last day the waiver applies)", s)
				}
				w.Until, w.ends = s, day.AddDate(0, 0, 1)
			}
		case "devices":
			if v.Kind != yaml.SequenceNode {
				return nil, at(file, v, "devices must be a list ([sda, ata-…]); leave it out to waive the rule on every subject")
			}
			for _, d := range v.Content {
				s, err := scalar(file, d, "a device")
				if err != nil {
					return nil, err
				}
				if strings.TrimSpace(s) == "" {
					return nil, at(file, d, "an empty device name")
				}
				w.Devices = append(w.Devices, s)
			}
			if len(w.Devices) == 0 {
				return nil, at(file, v, "devices is empty; leave it out to waive the rule on every subject")
			}
		}
	}
	if w.Rule == "" {
		return nil, at(file, n, "a waiver needs the rule it waives (rule: RULE-ID)")
	}
	if w.Reason == "" {
		return nil, at(file, n, "the waiver of %s needs a reason (reason: \"…\"): it is printed with the waived finding", w.Rule)
	}
	return w, nil
}

// sitePolicy applies a Site to one run's hits, and keeps what became of
// each waiver.
type sitePolicy struct {
	site   *Site
	now    time.Time
	states []WaiverState
}

func newSitePolicy(site *Site, now time.Time) *sitePolicy {
	p := &sitePolicy{site: site, now: now}
	if site == nil {
		return p
	}
	for _, w := range site.Waivers {
		st := WaiverState{Waiver: *w, State: WaiverUnmatched}
		if w.expired(now) {
			st.State = WaiverExpired
		}
		p.states = append(p.states, st)
	}
	return p
}

// regrade gives every hit of rule id the site's severity for it, and says
// where that severity was set ("" when the site sets none).
func (p *sitePolicy) regrade(id string, groups map[string][]hit) (map[string][]hit, string) {
	if p.site == nil {
		return groups, ""
	}
	o, ok := p.site.Severity[id]
	if !ok || len(groups) == 0 {
		return groups, ""
	}
	var all []hit
	for _, sev := range []string{Critical, Warning, Info} {
		for _, h := range groups[sev] {
			h.severity = o.Severity
			all = append(all, h)
		}
	}
	return map[string][]hit{o.Severity: all}, o.Source
}

// waivedHits are the hits one waiver accepts.
type waivedHits struct {
	waiver *Waiver
	hits   []hit
}

// waive splits rule id's hits into those that still count and those an
// unexpired waiver accepts (the first that covers the subject, in the
// file's order), grouped by waiver.
func (p *sitePolicy) waive(id string, hits []hit) ([]hit, []waivedHits) {
	if p.site == nil || len(p.site.Waivers) == 0 {
		return hits, nil
	}
	var kept []hit
	var out []waivedHits
	for _, h := range hits {
		wi := -1
		for i, w := range p.site.Waivers {
			if w.Rule == id && p.states[i].State != WaiverExpired && w.covers(h.subject) {
				wi = i
				break
			}
		}
		if wi < 0 {
			kept = append(kept, h)
			continue
		}
		st := &p.states[wi]
		st.State = WaiverApplied
		st.Subjects = append(st.Subjects, h.subject.name)
		j := 0
		for j < len(out) && out[j].waiver != p.site.Waivers[wi] {
			j++
		}
		if j == len(out) {
			out = append(out, waivedHits{waiver: p.site.Waivers[wi]})
		}
		out[j].hits = append(out[j].hits, h)
	}
	return kept, out
}
