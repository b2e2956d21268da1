package rules

import (
	"sort"
	"strings"

	"github.com/expr-lang/expr"

	"github.com/diskdoctor/diskdoctor/checks"
	"github.com/diskdoctor/diskdoctor/internal/parse"
)

// Passed is a rule that was judged on known facts and did not hold: on
// these subjects the rule's question was asked, and the answer was fine.
// A rule whose facts were unknown on a subject (never looked, or could
// not read) is not passed there: "checked and fine" must be told from
// "never looked".
type Passed struct {
	Rule string `json:"rule"`
	// Area is what the rule looks at, as the text report groups it
	// ("write cache", "TRIM", "SMART").
	Area     string   `json:"area"`
	Subjects []string `json:"subjects"`
}

// areas names each rule's area by the start of its id, in the order the
// text report lists them; the first entry that matches wins, so the more
// specific come first. Every rule needs one (TestEveryRuleHasAnArea): a
// new rule whose id starts with none of these gets an entry here.
var areas = []struct{ prefix, area string }{
	{"write-cache-", "write cache"},
	{"controller-", "controller"},
	{"trim-", "TRIM"},
	// A guest disk that passes no discard is a TRIM question: the text
	// report must not call the disk's TRIM fine beside it.
	{"virtual-disk-no-discard", "TRIM"},
	{"pcie-", "PCIe"},
	{"nvme-thermal-", "SMART"},
	{"nvme-", "NVMe power"},
	{"sata-", "SATA"},
	{"intel-rst-", "SATA"},
	{"usb-", "USB"},
	{"hba-", "SAS"},
	{"sas-", "SAS"},
	{"smart-", "SMART"},
	{"scterc-", "SMART"},
	{"smr-", "SMART"},
	{"hdd-", "SMART"},
	{"kernel-", "kernel log"},
	{"md-", "md"},
	{"zfs-", "ZFS"},
	{"swap-on-zvol", "ZFS"},
	{"lvm-", "LVM"},
	{"cache-layer-", "cache layers"},
	{"multipath-", "multipath"},
	{"dm-crypt-", "encryption"},
	{"luks-", "encryption"},
	{"filesystem-", "filesystems"},
	{"nfs-", "filesystems"},
	{"ext4-", "filesystems"},
	{"swap-on-benchmark-", "filesystems"},
	{"btrfs-", "btrfs"},
	{"ssd-nearly-full", "filesystems"},
	{"ssd-firmware-", "firmware"},
	{"mount-", "filesystems"},
	{"queue-", "queue"},
	{"partition-", "queue"},
	{"io-scheduler-", "queue"},
	{"device-", "throughput"},
	{"cpu-", "CPU"},
	{"vm-", "page cache"},
	{"ebs-", "cloud"},
	{"ephemeral-", "cloud"},
	{"cloud-", "cloud"},
	{"virtual-disk-", "cloud"},
}

// pressureInfix: a pressure rule (io-pressure-high, cpu-pressure-…) is
// in the pressure area whatever its resource.
const pressureInfix = "-pressure-"

// Area is the rule's area: "" for a built-in rule no entry of areas names
// (TestEveryRuleHasAnArea forbids it), SiteArea for such a site rule.
func (r *Rule) Area() string {
	if a := areaByPrefix(r.ID); a != "" || r.Origin == BuiltIn {
		return a
	}
	return SiteArea
}

// SiteArea is the area of a site's own rule whose id no entry of areas
// names.
const SiteArea = "site rules"

// AreaOf is the area of a rule id: a site's own rule whose id no entry of
// areas names is in SiteArea.
func AreaOf(id string) string {
	if a := areaByPrefix(id); a != "" {
		return a
	}
	return SiteArea
}

// areaByPrefix is the area the areas table gives a rule id, "" for none.
func areaByPrefix(id string) string {
	if strings.Contains(id, pressureInfix) {
		return "pressure"
	}
	for _, a := range areas {
		if strings.HasPrefix(id, a.prefix) {
			return a.area
		}
	}
	return ""
}

// AreaRank orders areas as the areas table lists them (pressure after
// the rest); unknown areas last.
func AreaRank(area string) int {
	for i, a := range areas {
		if a.area == area {
			return i
		}
	}
	if area == "pressure" {
		return len(areas)
	}
	return len(areas) + 1
}

// checkedFacts are the facts that must be known on a subject for the
// rule's not holding there to count as passed: checked_by, or else the
// first fact of its evidence. A rule with neither never passes.
func (r *Rule) checkedFacts() []string {
	if r.CheckedBy != nil {
		return r.CheckedBy
	}
	if len(r.Evidence) > 0 {
		return r.Evidence[:1]
	}
	return []string{}
}

// known says whether every fact the rule's verdict rests on was read on
// subject s (host.X on the host). A fact is unknown when it is nil,
// "", or "unknown": the values factSources documents for what could not
// be read. A device no rule judges for a person (judged false: a
// partition, a loop device, a disk gone from sysfs) passes nothing.
func (r *Rule) known(s, host *subject) bool {
	facts := r.checkedFacts()
	if len(facts) == 0 {
		return false
	}
	if s.kind == checks.KindDevice && s.facts[checks.FactJudged] != true {
		return false
	}
	for _, f := range facts {
		m := s.facts
		if h, ok := strings.CutPrefix(f, "host."); ok {
			m, f = host.facts, h
		}
		switch v := m[f]; v {
		case nil, "", "unknown":
			return false
		}
	}
	return true
}

// isAsked says whether the rule's question applies to the subject whose
// environment is env (AskedWhere); an expression that fails counts as
// not asked, so that an error never reads as fine.
func (r *Rule) isAsked(env map[string]any) bool {
	v, err := expr.Run(r.asked, env)
	return err == nil && v == true
}

// notFoundOnItsVolumes drops from a controller rule's passed subjects
// the controllers whose volumes it found: such a rule judges a controller
// itself only where no OS device carries its volumes (its condition says
// so), so that its not holding on the controller says nothing of the
// volumes, and a subject is never both found and checked and fine for
// one rule.
func (r *Rule) notFoundOnItsVolumes(passed []string, groups map[string][]hit) []string {
	if r.Subject != "controller" || len(passed) == 0 {
		return passed
	}
	found := map[string]bool{}
	for _, hs := range groups {
		for _, h := range hs {
			found[h.subject.name] = true
			if c := str(h.subject.facts[checks.FactCtlController]); c != "" {
				found[c] = true
			}
		}
	}
	var out []string
	for _, s := range passed {
		if !found[s] {
			out = append(out, s)
		}
	}
	return out
}

// passedList assembles each rule's passed subjects, in rule order, each
// rule's subjects in natural order.
func passedList(rs []*Rule, subjects [][]string) []Passed {
	out := []Passed{}
	for i, r := range rs {
		subs := subjects[i]
		if len(subs) == 0 {
			continue
		}
		sort.SliceStable(subs, func(a, b int) bool { return parse.NaturalLess(subs[a], subs[b]) })
		out = append(out, Passed{Rule: r.ID, Area: r.Area(), Subjects: subs})
	}
	return out
}

// withoutLoggedTrouble takes out of the "kernel log" area the subjects of
// a warning or critical finding that rests on kernel log lines (a USB
// bridge's resets, an HBA's fault, a btrfs device's errors): those lines
// were understood and judged under another rule, and the disk's kernel log
// is not "checked and fine" beside them. A write-cache finding's boot line
// ("Write cache: disabled") reports a setting, not trouble, and stays out.
func withoutLoggedTrouble(passed []Passed, findings []Finding) []Passed {
	troubled := map[string]bool{}
	for _, f := range findings {
		if f.Severity != Warning && f.Severity != Critical || AreaOf(f.Rule) == "write cache" {
			continue
		}
		for _, e := range f.Evidence {
			if strings.HasPrefix(e.Source, "dmesg line ") {
				for _, s := range f.Subjects {
					troubled[s] = true
				}
				break
			}
		}
	}
	if len(troubled) == 0 {
		return passed
	}
	out := passed[:0:0]
	for _, p := range passed {
		if p.Area == "kernel log" {
			var keep []string
			for _, s := range p.Subjects {
				if !troubled[s] {
					keep = append(keep, s)
				}
			}
			if len(keep) == 0 {
				continue
			}
			p.Subjects = keep
		}
		out = append(out, p)
	}
	return out
}
