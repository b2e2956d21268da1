package fixturetest

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Finding is what Contradictions reads of one finding of a report, in
// the report's order: its texts as the rule said them of each subject.
type Finding struct {
	Rule, Title string
	Subjects    []string
	// Texts are the impact and observed texts by subject; a subject
	// missing here is said the finding's Impact and Observed.
	Texts            map[string]string
	Impact, Observed string
	Notes            []string
}

// Facts are a run's facts by subject ("host" for the host's).
type Facts map[string]map[string]any

// text is everything the finding says of subject s: title, impact,
// observed.
func (f Finding) text(s string) string {
	t, ok := f.Texts[s]
	if !ok {
		t = f.Impact + " " + f.Observed
	}
	return f.Title + " " + t
}

// claim is a sentence a finding may say of a subject only where the
// subject's facts hold it.
type claim struct {
	name string
	says *regexp.Regexp
	// holds: the facts of the subject (and the host's) allow the claim;
	// a fact that was not read allows nothing.
	holds func(s, host map[string]any) bool
}

var claims = []claim{
	{"a failed or missing battery or capacitor",
		regexp.MustCompile(`(?i)keeps writing back without|writes back without power-loss protection|battery or capacitor has failed|with no battery or capacitor`),
		func(s, _ map[string]any) bool {
			return s["ctl_energy_state"] == "failed" || s["ctl_energy_pack"] == "none" || s["ctl_energy_state"] == "charging"
		}},
	{"failing health",
		regexp.MustCompile(`(?i)failing health|health (check )?failed`),
		func(s, _ map[string]any) bool {
			l, _ := s["smart_critical"].([]string)
			return s["smart_passed"] != true && len(l) > 0
		}},
	{"a figure measured on a SATA SSD",
		regexp.MustCompile(`(?i)measured on [^;)]*SATA SSD`),
		func(s, _ map[string]any) bool { return s["class"] == "sata-ssd" }},
	{"a figure measured on a server with parked cores",
		regexp.MustCompile(`(?i)measured on a Dell PowerEdge R630`),
		func(_, h map[string]any) bool {
			f, ok := h["cpus_at_min_fraction"].(float64)
			return h["role"] == "server" && ok && f >= 0.5
		}},
	{"a measured figure without what it was measured on",
		regexp.MustCompile(`(?i)\(measured: `),
		func(_, _ map[string]any) bool { return false }},
	// Cloudflare's doubling came from its servers with the queues
	// bypassed and its own crypto patches ("Speeding up Linux disk
	// encryption", 2020): not a figure for another machine's disk.
	{"a figure measured on Cloudflare's servers",
		regexp.MustCompile(`(?i)Cloudflare measured`),
		func(_, _ map[string]any) bool { return false }},
	{"lost redundancy",
		regexp.MustCompile(`(?i)redundancy reduced|reduced redundancy|lost redundancy|no redundancy left`),
		func(s, _ map[string]any) bool {
			if st, ok := s["zfs_state"].(string); ok {
				return st == "DEGRADED" || st == "FAULTED" || st == "UNAVAIL"
			}
			return true // not a ZFS pool: its own rules decide
		}},
	{"a stalled pass",
		regexp.MustCompile(`(?i)\bstalled\b`),
		func(s, _ map[string]any) bool {
			if _, md := s["md_action"]; md {
				return s["md_sync_stalled"] == true
			}
			if _, zfs := s["zfs_scan_in_progress"]; zfs {
				return s["zfs_scan_stalled"] == true
			}
			if _, ctl := s["ctl_tasks"]; ctl {
				l, _ := s["ctl_tasks_stalled"].([]string)
				return len(l) > 0
			}
			return true
		}},
}

// mdStalledMinutes: a running md pass this far from its end at mdstat's
// rate must be called stalled (checks/md.go mdStallDays).
const mdStalledMinutes = 30 * 24 * 60

// Contradictions lists what the findings say against their subjects'
// facts, each with the finding's rank: a claim the facts do not hold
// (a failed battery beside a healthy one, failing health beside a
// passed check, a figure quoted for a class it was not measured on, lost
// redundancy on an ONLINE pool), a boolean fact printed raw, a pass that is not called stalled when
// it is, a platform note for another generation, a note that points at a
// finding that ranks the other way, and a rule that is both found and
// checked and fine on a subject (passed: the rules' passed subjects).
// platform is the host's DMI product line.
func Contradictions(fs []Finding, facts Facts, passed map[string][]string, platform string) []string {
	var out []string
	host := facts["host"]
	for i, f := range fs {
		at := fmt.Sprintf("finding %d %s %q", i+1, f.Rule, f.Title)
		for _, s := range f.Subjects {
			sf := facts[s]
			t := f.text(s)
			for _, c := range claims {
				if c.says.MatchString(t) && !c.holds(sf, host) {
					out = append(out, fmt.Sprintf("%s says %s of %s (%q), against its facts", at, c.name, s, c.says.FindString(t)))
				}
			}
			if m := bareBool.FindString(t); m != "" {
				out = append(out, fmt.Sprintf("%s says a fact's raw value of %s (%q): words, not true or false", at, s, m))
			}
			if f.Rule == "md-background-work" && !strings.Contains(f.Title, "stalled") {
				if m, ok := sf["md_sync_finish_min"].(float64); ok && m > mdStalledMinutes {
					out = append(out, fmt.Sprintf("%s: %s has %.0f minutes to go and is not called stalled", at, s, m))
				}
			}
			if f.Rule == "zfs-background-work" && !strings.Contains(f.Title, "stalled") {
				if m, ok := sf["zfs_scan_to_go_min"].(float64); ok && m > mdStalledMinutes {
					out = append(out, fmt.Sprintf("%s: %s has %.0f minutes to go and is not called stalled", at, s, m))
				}
			}
			if slices.Contains(passed[f.Rule], s) {
				out = append(out, fmt.Sprintf("%s on %s is also checked and fine on it", at, s))
			}
			if c, ok := sf["ctl_controller"].(string); ok && sf["controller_volume"] == true && slices.Contains(passed[f.Rule], c) {
				out = append(out, fmt.Sprintf("%s on %s is checked and fine on its controller %s", at, s, c))
			}
		}
		for _, n := range f.Notes {
			out = append(out, pointing(fs, i, n)...)
			if strings.Contains(n, "Gen10 and later") && !gen10OrLater.MatchString(platform) {
				out = append(out, fmt.Sprintf("%s: a note for Gen10 and later on %q", at, platform))
			}
		}
	}
	return out
}

// bareBool is a boolean fact printed as it is ("degraded mount true",
// "sync false"): a sentence says what holds, not a Go value.
var bareBool = regexp.MustCompile(`\w+ (true|false)\b`)

var gen10OrLater = regexp.MustCompile(`\bGen(1[0-9]|[2-9][0-9])\b`)

var (
	// "finding 3 below (kernel-io-errors on sdc)"
	citedByNumber = regexp.MustCompile(`finding (\d+) (above|below) \(([a-z0-9-]+) on `)
	// "explained by write-cache-disabled on sda, sdb (ranked above)"
	citedByRule = regexp.MustCompile(`by ([a-z0-9-]+) on [^()]*\(ranked (above|below)\)`)
	// words that point without saying which finding
	pointsVaguely = regexp.MustCompile(`(?i)findings? (above|below) this one`)
)

// pointing checks one note of finding i that points at other findings:
// the finding it names is where the note says it is.
func pointing(fs []Finding, i int, note string) []string {
	var out []string
	at := fmt.Sprintf("finding %d %s", i+1, fs[i].Rule)
	for _, m := range citedByNumber.FindAllStringSubmatch(note, -1) {
		n, _ := strconv.Atoi(m[1])
		switch {
		case n < 1 || n > len(fs) || fs[n-1].Rule != m[3]:
			out = append(out, fmt.Sprintf("%s: note cites finding %d as %s, which it is not: %q", at, n, m[3], note))
		case (n-1 < i) != (m[2] == "above"):
			out = append(out, fmt.Sprintf("%s: note says finding %d is %s: %q", at, n, m[2], note))
		}
	}
	for _, m := range citedByRule.FindAllStringSubmatch(note, -1) {
		j := slices.IndexFunc(fs, func(f Finding) bool { return f.Rule == m[1] })
		if j < 0 || (j < i) != (m[2] == "above") {
			out = append(out, fmt.Sprintf("%s: note says %s ranks %s: %q", at, m[1], m[2], note))
		}
	}
	if m := pointsVaguely.FindStringSubmatch(note); m != nil {
		out = append(out, fmt.Sprintf("%s: note points at the findings %s without naming them: %q", at, m[1], note))
	}
	return out
}

// PerSubject takes apart a text joined as the rules join one text of
// several subjects ("sda, sdb: …; sdc: …"): each subject's own, or the
// whole text for every subject when it was said once for all.
func PerSubject(joined string, subjects []string) map[string]string {
	out := map[string]string{}
	if len(subjects) < 2 {
		for _, s := range subjects {
			out[s] = joined
		}
		return out
	}
	var alts []string
	for _, s := range subjects {
		alts = append(alts, regexp.QuoteMeta(s))
	}
	one := "(?:" + strings.Join(alts, "|") + ")"
	head := regexp.MustCompile(`(?:^|; )(` + one + `(?:, ` + one + `)*): `)
	locs := head.FindAllStringSubmatchIndex(joined, -1)
	if len(locs) == 0 || locs[0][0] != 0 {
		for _, s := range subjects {
			out[s] = joined
		}
		return out
	}
	for k, l := range locs {
		end := len(joined)
		if k+1 < len(locs) {
			end = locs[k+1][0]
		}
		text := joined[l[1]:end]
		for _, s := range strings.Split(joined[l[2]:l[3]], ", ") {
			out[s] += text
		}
	}
	return out
}
