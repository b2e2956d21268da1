package rules

import (
	"fmt"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/vm"

	"github.com/diskdoctor/diskdoctor/checks"
	"github.com/diskdoctor/diskdoctor/internal/parallel"
	"github.com/diskdoctor/diskdoctor/internal/parse"
)

// Finding is one rule's judgement, over every subject it holds for.
type Finding struct {
	Rule        string            `json:"rule"`
	Severity    string            `json:"severity"`
	Subjects    []string          `json:"subjects"`
	Title       string            `json:"title"`
	Impact      string            `json:"impact"`
	Expected    string            `json:"expected"`
	Observed    string            `json:"observed,omitempty"`
	Evidence    []checks.Evidence `json:"evidence"`
	Remediation []Remediation     `json:"remediation"`
	Notes       []string          `json:"notes,omitempty"`
	References  []string          `json:"references,omitempty"`

	score float64
	// active holds the subjects with a measured I/O contribution (busy in
	// the sampling window, or writing in zpool iostat's window): only they
	// can explain a host-wide symptom such as I/O pressure.
	active map[string]bool
	// rankAs is the severity the finding sorts by: a cause sorts with the
	// most severe symptom it explains.
	rankAs int
}

// Remediation is a command to run by hand, with its risk label.
type Remediation struct {
	Command string `json:"command"`
	Risk    string `json:"risk"`
	Note    string `json:"note,omitempty"`
}

// FileLineWidth is the widest line a remediation writes into a file (the
// body of a here-document: a udev rules file, a systemd unit, a grub.d
// fragment). A report prints such a body byte for byte at column 0 and
// never re-wraps it (a break would change the file), so rules keep its
// lines short by construction with the file format's own continuations:
// the text report fits any terminal of this width or more. Only a value
// from the machine (a serial, on a udev match key that stands on a line of
// its own) may make a line longer.
const FileLineWidth = 56

// Engine holds compiled rules, datasheets and platform knowledge.
type Engine struct {
	Rules      []*Rule
	Datasheets *Datasheets
	Platforms  []Platform
	// Strict makes a rule whose condition cannot be evaluated an error.
	// Otherwise missing data (a fact a skipped probe could not read) makes
	// the rule not apply; the skipped entry already says why. Tests run
	// strict so that rules handle missing facts with ?? explicitly.
	Strict bool
}

// NewEngine loads the embedded rules and platforms and the given datasheets.
func NewEngine(ds *Datasheets) (*Engine, error) {
	rs, err := Load()
	if err != nil {
		return nil, err
	}
	ps, err := LoadPlatforms()
	if err != nil {
		return nil, err
	}
	return &Engine{Rules: rs, Datasheets: ds, Platforms: ps}, nil
}

// subject is everything known about one device or the host, merged from
// every check.
type subject struct {
	name  string
	kind  string
	facts map[string]any
	// evidence is each of the subject's observations' evidence, in their
	// order: looked up for the few facts a finding cites rather than
	// merged per subject (8 KB each, alive while the rules judge).
	evidence []checks.EvidenceIndex
	ds       *Datasheet
	// saved and inPlace: the facts env replaced, until restore.
	saved   [len(envKeys)]savedFact
	inPlace bool
}

// Subjects merges observations per subject and attaches datasheets to
// devices; the host's facts are visible to device rules as host.<fact>.
func (e *Engine) subjects(res *checks.Result) (map[string]*subject, []string) {
	// Each subject's observations, in the order the checks gave them (a
	// later fact of the same name wins, as one map filled in that order
	// would have it), and the size of its maps: grown one insertion at a
	// time they were rehashed several times each.
	type group struct {
		obs   []*checks.Observation
		facts int
	}
	index := map[string]int{}
	var order []string
	var groups []group
	for _, o := range res.Observations {
		k := o.Kind + "/" + o.Subject
		i, ok := index[k]
		if !ok {
			i = len(groups)
			index[k] = i
			order = append(order, k)
			groups = append(groups, group{})
		}
		g := &groups[i]
		g.obs = append(g.obs, o)
		g.facts += len(o.Facts())
	}
	// Subjects are merged independently of each other: on as many
	// workers as there are cores (a thousand disks' maps are most of the
	// engine's time).
	built := make([]*subject, len(groups))
	// A thousand disks are a few models: each model's datasheet is looked
	// up once (a lookup tries every model's expression).
	var sheets sync.Map // model + "\x00" + class -> *Datasheet
	parallel.Each(len(groups), runtime.GOMAXPROCS(0), func(i int) {
		g := groups[i]
		first := g.obs[0]
		// The class the engine adds below, and the names env adds.
		s := &subject{name: first.Subject, kind: first.Kind, facts: make(map[string]any, g.facts+1+len(envKeys))}
		for _, o := range g.obs {
			for _, f := range o.Facts() {
				s.facts[f.Name] = f.Value
			}
			if o.HasEvidence() {
				s.evidence = append(s.evidence, o.Evidence())
			}
		}
		if s.kind == checks.KindDevice {
			e.classify(s, &sheets)
		}
		built[i] = s
	})
	subs := make(map[string]*subject, len(order)+1)
	for i, k := range order {
		subs[k] = built[i]
	}
	host := subs[checks.KindHost+"/host"]
	if host == nil {
		host = &subject{name: "host", kind: checks.KindHost, facts: map[string]any{}}
		subs[checks.KindHost+"/host"] = host
		order = append(order, checks.KindHost+"/host")
	}
	sort.SliceStable(order, func(i, j int) bool {
		a, b := subs[order[i]], subs[order[j]]
		if a.kind != b.kind {
			return a.kind < b.kind
		}
		return parse.NaturalLess(a.name, b.name)
	})
	return subs, order
}

// classify gives a device subject its class and datasheet; sheets holds
// the lookups made so far.
func (e *Engine) classify(s *subject, sheets *sync.Map) {
	class := DeviceClass(str(s.facts["transport"]), s.facts["rotational"], s.facts["pcie_max_gts"])
	model := str(s.facts["model"])
	if s.facts["virtual_disk"] == true {
		// A guest's disk performs as the host's storage does: no drive
		// datasheet applies, whatever it calls itself.
		class, model = "virtual", ""
	}
	key := model + "\x00" + class
	if ds, ok := sheets.Load(key); ok {
		s.ds = ds.(*Datasheet)
	} else {
		s.ds = e.Datasheets.Lookup(model, class)
		sheets.Store(key, s.ds)
	}
	s.facts["class"] = class
	if s.ds != nil {
		s.facts["class"] = s.ds.Class
	}
}

// envKeys are the names the engine adds to a subject's facts for its rules.
var envKeys = [...]string{"subject", "host", "ds", "platform", "platform_quirks"}

// savedFact is a subject's own fact under one of envKeys, if it had one.
type savedFact struct {
	v   any
	had bool
}

// env is the environment a subject's rules see: its facts, and subject,
// host, ds, platform and platform_quirks. For every subject but the host
// (whose facts the others see as host, and which must not contain
// itself) it is the subject's own facts map with those names set, not a
// copy (a copy per subject was 8 MB on 1,000 disks); restore takes them
// out again once the rules are done. dsMaps holds each datasheet as the
// rules see it, built once per datasheet rather than once per subject.
func (e *Engine) env(s *subject, host *subject, platform *Platform, dsMaps map[*Datasheet]map[string]any) map[string]any {
	env := s.facts
	if s == host {
		env = make(map[string]any, len(s.facts)+len(envKeys))
		for k, v := range s.facts {
			env[k] = v
		}
	} else {
		for i, k := range envKeys {
			s.saved[i].v, s.saved[i].had = env[k]
		}
		s.inPlace = true
	}
	ds, ok := dsMaps[s.ds]
	if !ok {
		ds = s.ds.asMap()
		dsMaps[s.ds] = ds
	}
	env["subject"] = s.name
	env["host"] = host.facts
	env["ds"] = ds
	env["platform"] = ""
	env["platform_quirks"] = []string{}
	if platform != nil {
		env["platform"] = platform.Name
		env["platform_quirks"] = append([]string{}, platform.Quirks...)
	}
	return env
}

// restore gives a subject its own facts back after env set its names in
// them.
func (s *subject) restore() {
	if !s.inPlace {
		return
	}
	for i, k := range envKeys {
		if s.saved[i].had {
			s.facts[k] = s.saved[i].v
		} else {
			delete(s.facts, k)
		}
	}
	s.saved = [len(envKeys)]savedFact{}
	s.inPlace = false
}

func (e *Engine) platformOf(host *subject) *Platform {
	vendor, product := str(host.facts["vendor"]), str(host.facts["product"])
	for i := range e.Platforms {
		p := &e.Platforms[i]
		if matches(p.Vendor, vendor) && matches(p.Product, product) {
			return p
		}
	}
	return nil
}

func matches(pattern, s string) bool {
	if pattern == "" {
		return true
	}
	ok, err := regexp.MatchString(pattern, s)
	return err == nil && ok
}

// hit is one rule holding for one subject.
type hit struct {
	subject  *subject
	host     *subject
	env      map[string]any
	severity string
	score    float64
}

// Judge evaluates every rule on every subject, groups each rule's hits of
// one severity into one finding, and ranks the findings.
func (e *Engine) Judge(res *checks.Result) ([]Finding, error) {
	subs, order := e.subjects(res)
	fs, _, err := e.judge(subs, order)
	return fs, err
}

// evalErrors collects expressions that failed at run time, per rule and
// error, so that a rule that could not judge says so (a skipped entry)
// instead of vanishing.
type evalErrors struct {
	entries map[string]*checks.Skipped
	order   []string
}

func (x *evalErrors) add(rule, part, subject string, err error) {
	if x.entries == nil {
		x.entries = map[string]*checks.Skipped{}
	}
	reason := fmt.Sprintf("%s: %s failed: %v", rule, part, err)
	sk, ok := x.entries[reason]
	if !ok {
		sk = &checks.Skipped{Check: "rule " + rule, Reason: reason,
			Hint: "the rule could not judge these subjects, so its absence from the findings means nothing here; report it with the output of --format json"}
		x.entries[reason] = sk
		x.order = append(x.order, reason)
	}
	sk.Subjects = append(sk.Subjects, subject)
}

// merge adds y's entries after x's, in y's order.
func (x *evalErrors) merge(y *evalErrors) {
	for _, reason := range y.order {
		sk := y.entries[reason]
		if x.entries == nil {
			x.entries = map[string]*checks.Skipped{}
		}
		if have, ok := x.entries[reason]; ok {
			have.Subjects = append(have.Subjects, sk.Subjects...)
			continue
		}
		x.entries[reason] = sk
		x.order = append(x.order, reason)
	}
}

func (x *evalErrors) list() []checks.Skipped {
	var out []checks.Skipped
	for _, k := range x.order {
		out = append(out, *x.entries[k])
	}
	return out
}

func (e *Engine) judge(subs map[string]*subject, order []string) ([]Finding, []checks.Skipped, error) {
	host := subs[checks.KindHost+"/host"]
	platform := e.platformOf(host)
	defer func() {
		for _, k := range order {
			subs[k].restore()
		}
	}()
	// Subject by subject, each subject's environment (its facts) built
	// once for every rule and kept only when a rule holds for it: built
	// for all subjects at once, the environments were the largest part of
	// the run's peak memory. The subjects are judged in contiguous parts,
	// one per core; what each rule found, and what failed, is kept per
	// part and per rule and assembled in the rules' order and then the
	// parts' order afterwards, so the findings, the skipped entries and
	// the first error of a strict run are those of one pass over the
	// subjects in order.
	parts := min(runtime.GOMAXPROCS(0), max(1, len(order)/64))
	states := make([][]ruleState, parts)
	parallel.Each(parts, parts, func(p int) {
		lo, hi := p*len(order)/parts, (p+1)*len(order)/parts
		states[p] = e.judgePart(subs, order[lo:hi], host, platform)
	})
	var findings []Finding
	var errs evalErrors
	for ri, r := range e.Rules {
		var groups map[string][]hit
		for p := range states {
			st := &states[p][ri]
			if st.strict != nil {
				return nil, nil, st.strict
			}
			errs.merge(&st.errs)
			for sev, hits := range st.groups {
				if groups == nil {
					groups = map[string][]hit{}
				}
				groups[sev] = append(groups[sev], hits...)
			}
		}
		for _, sev := range []string{Critical, Warning, Info} {
			if hits := groups[sev]; len(hits) > 0 {
				f, err := e.finding(r, hits, platform, &errs)
				if err != nil {
					return nil, nil, err
				}
				findings = append(findings, f)
			}
		}
	}
	e.linkCauses(findings)
	Rank(findings)
	return findings, errs.list(), nil
}

// ruleState is what one rule found on a part of the subjects: its hits by
// severity, its failed expressions, and, in a strict run, its first
// failure.
type ruleState struct {
	groups map[string][]hit
	errs   evalErrors
	strict error
}

// judgePart evaluates every rule on the subjects named in order, in that
// order, and returns one state per rule.
func (e *Engine) judgePart(subs map[string]*subject, order []string, host *subject, platform *Platform) []ruleState {
	states := make([]ruleState, len(e.Rules))
	dsMaps := map[*Datasheet]map[string]any{}
	// One machine runs every condition of the part (rules x subjects:
	// 30,000 runs on 1,000 disks); expr.Run would make a new one, and its
	// stack, per run.
	var machine vm.VM
	run := func(p *vm.Program, env map[string]any) (any, error) {
		if p == nil {
			return expr.Run(p, env) // its error, not the machine's panic
		}
		return machine.Run(p, env)
	}
	for _, k := range order {
		s := subs[k]
		var env map[string]any
		for ri, r := range e.Rules {
			st := &states[ri]
			if s.kind != r.Subject || st.strict != nil {
				continue
			}
			if env == nil {
				env = e.env(s, host, platform, dsMaps)
			}
			ok, err := run(r.when, env)
			if err != nil {
				if e.Strict {
					st.strict = fmt.Errorf("rule %s on %s: %w", r.ID, s.name, err)
					continue
				}
				st.errs.add(r.ID, "condition", s.name, err)
				continue
			}
			if ok != true {
				continue
			}
			sev := r.Severity
			failed := false
			for i, c := range r.SeverityWhen {
				v, err := run(c.prog, env)
				if err != nil {
					if e.Strict {
						st.strict = fmt.Errorf("rule %s on %s: severity_when %d: %w", r.ID, s.name, i+1, err)
						failed = true
						break
					}
					st.errs.add(r.ID, fmt.Sprintf("severity_when %d", i+1), s.name, err)
					continue
				}
				if v == true {
					sev = c.Severity
					break
				}
			}
			if failed {
				continue
			}
			score := 50.0
			if v, err := run(r.score, env); err == nil {
				score, _ = toFloat(v)
			} else if e.Strict {
				st.strict = fmt.Errorf("rule %s on %s: impact_score: %w", r.ID, s.name, err)
				continue
			} else {
				st.errs.add(r.ID, "impact_score", s.name, err)
			}
			if st.groups == nil {
				st.groups = map[string][]hit{}
			}
			st.groups[sev] = append(st.groups[sev], hit{s, host, env, sev, score})
		}
	}
	return states
}

// linkCauses connects a configuration cause with the measured symptoms it
// accounts for on the same subjects (a host-wide symptom, such as pressure,
// is accounted for by any device cause): the cause cites the measurement
// and ranks first; the symptom points at its cause.
func (e *Engine) linkCauses(fs []Finding) {
	explains := map[string][]string{}
	for _, r := range e.Rules {
		explains[r.ID] = r.Explains
	}
	for i := range fs {
		fs[i].rankAs = severityRank[fs[i].Severity]
	}
	// The strongest cause of a symptom takes its rank; further causes of
	// the same symptom cite it but keep their own severity.
	causes := make([]int, len(fs))
	for i := range causes {
		causes[i] = i
	}
	sort.SliceStable(causes, func(a, b int) bool { return less(fs[causes[a]], fs[causes[b]]) })
	explained := map[int]bool{}
	for _, i := range causes {
		if fs[i].Severity == Info {
			continue // a note explains nothing: its condition is not a fault here
		}
		for _, sym := range explains[fs[i].Rule] {
			for j := range fs {
				if fs[j].Rule != sym || i == j {
					continue
				}
				common := overlap(fs[i].Subjects, fs[j].Subjects)
				if len(fs[j].Subjects) == 1 && fs[j].Subjects[0] == "host" && !(len(fs[i].Subjects) == 1 && fs[i].Subjects[0] == "host") {
					// A device explains host pressure only through what it
					// measurably did: an idle device explains nothing.
					var busy []string
					for _, s := range fs[i].Subjects {
						if fs[i].active[s] {
							busy = append(busy, s)
						}
					}
					if len(busy) == 0 {
						continue
					}
					common = busy
				}
				if len(common) == 0 {
					continue
				}
				fs[i].Notes = append(fs[i].Notes, fmt.Sprintf("explains %s on %s (the measurement is in the evidence)", sym, strings.Join(common, ", ")))
				fs[i].Evidence = append(fs[i].Evidence, checks.Evidence{Source: "measured (" + sym + ")", Value: fs[j].Observed})
				if explained[j] {
					fs[j].Notes = append(fs[j].Notes, "also explained in part by "+fs[i].Rule+" on "+strings.Join(fs[i].Subjects, ", "))
					continue
				}
				fs[j].Notes = append(fs[j].Notes, "explained by "+fs[i].Rule+" on "+strings.Join(fs[i].Subjects, ", ")+" (ranked above)")
				explained[j] = true
				if r := severityRank[fs[j].Severity]; r > fs[i].rankAs {
					fs[i].rankAs = r
				}
				if fs[j].score >= fs[i].score {
					fs[i].score = fs[j].score + 1
				}
			}
		}
	}
}

// measuredContribution: the subject did I/O in a measuring window (the
// --sample window, or zpool iostat's interval).
func measuredContribution(env map[string]any) bool {
	util, _ := toFloat(env["sample_util_pct"])
	r, _ := toFloat(env["sample_r_mbs"])
	w, _ := toFloat(env["sample_w_mbs"])
	zw, _ := toFloat(env["zfs_write_iops"])
	zr, _ := toFloat(env["zfs_read_iops"])
	return util >= 10 || r+w >= 1 || zw+zr >= 1
}

// overlap is the subjects a cause covers of a symptom's: a host-wide
// symptom (pressure) is covered by any cause, a host-wide cause (the CPU
// governor) covers every subject.
func overlap(cause, symptom []string) []string {
	if len(symptom) == 1 && symptom[0] == "host" || len(cause) == 1 && cause[0] == "host" {
		return symptom
	}
	in := map[string]bool{}
	for _, s := range cause {
		in[s] = true
	}
	var out []string
	for _, s := range symptom {
		if in[s] {
			out = append(out, s)
		}
	}
	return out
}

func (e *Engine) finding(r *Rule, hits []hit, platform *Platform, errs *evalErrors) (Finding, error) {
	// fail records an expression that failed on a subject: an error when
	// strict, a skipped entry otherwise.
	var strictErr error
	fail := func(part, subject string, err error) {
		if e.Strict && strictErr == nil {
			strictErr = fmt.Errorf("rule %s on %s: %s: %w", r.ID, subject, part, err)
		}
		errs.add(r.ID, part, subject, err)
	}
	f := Finding{Rule: r.ID, Severity: hits[0].severity, Title: r.Title, References: r.References}
	texts := make([]hitTexts, len(hits))
	workers := 1
	if len(hits) >= minParallelHits {
		workers = runtime.GOMAXPROCS(0)
	}
	parallel.Each(len(hits), workers, func(i int) { texts[i] = textsOf(r, hits[i]) })
	// Assembled in the hits' order, as if the texts had been made here.
	var impact, expected, observed perSubject
	seenEv := map[checks.Evidence]bool{}
	seenCmd := map[string]bool{}
	seenNote := map[string]bool{}
	f.active = map[string]bool{}
	for hi, h := range hits {
		t := &texts[hi]
		f.Subjects = append(f.Subjects, h.subject.name)
		if measuredContribution(h.env) {
			f.active[h.subject.name] = true
		}
		if h.score > f.score {
			f.score = h.score
		}
		impact.add(h.subject.name, t.impact)
		expected.add(h.subject.name, t.expected)
		observed.add(h.subject.name, t.observed)
		for _, fact := range r.Evidence {
			src := h.subject
			if strings.HasPrefix(fact, "host.") {
				src, fact = h.host, strings.TrimPrefix(fact, "host.")
			}
			for _, evs := range src.evidence {
				for _, ev := range evs.Of(fact) {
					if !seenEv[ev] {
						seenEv[ev] = true
						f.Evidence = append(f.Evidence, ev)
					}
				}
			}
		}
		for i := range r.Notes {
			if err := t.noteErr[i]; err != nil {
				fail(fmt.Sprintf("note %d", i+1), h.subject.name, err)
				continue
			}
			if n := t.notes[i]; n != "" && !seenNote[n] {
				seenNote[n] = true
				f.Notes = append(f.Notes, n)
			}
		}
	}
	// Remediation in the rule's order: an entry for the whole finding is
	// rendered once over the subjects it applies to, the others per subject.
	for i, m := range r.Remediation {
		var rems []Remediation
		if m.All {
			var envs []map[string]any
			var names []string
			for hi, h := range hits {
				if err := texts[hi].remErr[i]; err != nil {
					fail(fmt.Sprintf("remediation %d", i+1), h.subject.name, err)
					continue
				}
				if texts[hi].applies[i] {
					envs = append(envs, h.env)
					names = append(names, h.subject.name)
				}
			}
			if len(envs) > 0 {
				env := make(map[string]any, len(envs[0])+2)
				for k, v := range envs[0] {
					env[k] = v
				}
				env["hits"] = envs
				env["subjects"] = names
				if cmd := render(m.cmd, env); cmd != "" {
					rems = append(rems, Remediation{Command: cmd, Risk: m.Risk, Note: render(m.note, env)})
				}
			}
		} else {
			for hi, h := range hits {
				if err := texts[hi].remErr[i]; err != nil {
					fail(fmt.Sprintf("remediation %d", i+1), h.subject.name, err)
				}
				rems = append(rems, texts[hi].rems[i]...)
			}
		}
		for _, rem := range rems {
			if seenCmd[rem.Command] {
				continue
			}
			seenCmd[rem.Command] = true
			f.Remediation = append(f.Remediation, rem)
		}
	}
	if platform != nil {
		if n := platform.Notes[r.ID]; n != "" {
			f.Notes = append([]string{platform.Name + ": " + n}, f.Notes...)
		}
	}
	f.Impact = impact.String()
	f.Expected = expected.String()
	f.Observed = observed.String()
	if f.Evidence == nil {
		f.Evidence = []checks.Evidence{}
	}
	if f.Remediation == nil {
		f.Remediation = []Remediation{}
	}
	return f, strictErr
}

// minParallelHits is the size of a finding whose hits' texts are made on
// every core: below it, the goroutines cost more than they save.
const minParallelHits = 32

// hitTexts is what a rule says of one hit: its templates rendered and its
// notes' and remediation entries' conditions run. A hit's texts depend on
// that hit alone, and on a thousand hits they were most of a finding's
// time, on one core.
type hitTexts struct {
	impact, expected, observed string
	notes                      []string // per note: its text, when its condition holds
	noteErr                    []error
	applies                    []bool          // per entry for the whole finding: it applies to this hit
	rems                       [][]Remediation // per entry for each subject: its commands
	remErr                     []error
}

func textsOf(r *Rule, h hit) hitTexts {
	t := hitTexts{
		impact: render(r.impact, h.env), expected: render(r.expected, h.env), observed: render(r.observed, h.env),
		notes: make([]string, len(r.Notes)), noteErr: make([]error, len(r.Notes)),
		applies: make([]bool, len(r.Remediation)), rems: make([][]Remediation, len(r.Remediation)), remErr: make([]error, len(r.Remediation)),
	}
	for i, n := range r.Notes {
		v, err := expr.Run(n.prog, h.env)
		if err != nil {
			t.noteErr[i] = err
			continue
		}
		if v == true {
			t.notes[i] = render(n.tmpl, h.env)
		}
	}
	for i, m := range r.Remediation {
		if !m.All {
			t.rems[i], t.remErr[i] = remedies(m, h)
			continue
		}
		v, err := expr.Run(m.prog, h.env)
		t.remErr[i] = err
		t.applies[i] = err == nil && v == true && destructiveAllowed(m, h.env)
	}
	return t
}

// destructiveAllowed: a destructive command only for a device that holds
// nothing (in_use known and false).
func destructiveAllowed(m Remedy, env map[string]any) bool {
	if m.Risk != RiskDestructive {
		return true
	}
	inUse, ok := env["in_use"].(bool)
	return ok && !inUse
}

// remedies renders one remediation entry for one subject. Destructive
// commands are offered only for a device that holds nothing: no mounted
// filesystem, swap, pool membership, partition with a filesystem or holder.
func remedies(m Remedy, h hit) ([]Remediation, error) {
	v, err := expr.Run(m.prog, h.env)
	if err != nil {
		return nil, err
	}
	if v != true || !destructiveAllowed(m, h.env) {
		return nil, nil
	}
	items := []any{nil}
	if m.ForEach != "" {
		items = nil
		switch l := h.env[m.ForEach].(type) {
		case []string:
			for _, x := range l {
				items = append(items, x)
			}
		case []any:
			items = l
		}
	}
	if m.ForEach != "" {
		// .item is set in the hit's own environment while its commands
		// are rendered, and taken out after: a copy of the hundred-odd
		// facts per item was most of a large finding's allocation. Only
		// the goroutine making this hit's texts uses the environment.
		old, had := h.env["item"]
		defer func() {
			if had {
				h.env["item"] = old
			} else {
				delete(h.env, "item")
			}
		}()
	}
	var out []Remediation
	for _, it := range items {
		if m.ForEach != "" {
			h.env["item"] = it
		}
		cmd := render(m.cmd, h.env)
		if cmd == "" {
			continue
		}
		out = append(out, Remediation{Command: cmd, Risk: m.Risk, Note: render(m.note, h.env)})
	}
	return out, nil
}

// perSubject collects one text per subject and prints identical texts once,
// naming their subjects when they differ.
type perSubject struct {
	texts []string
	subjs map[string][]string
}

func (p *perSubject) add(subject, text string) {
	if text == "" {
		return
	}
	if p.subjs == nil {
		p.subjs = map[string][]string{}
	}
	if _, ok := p.subjs[text]; !ok {
		p.texts = append(p.texts, text)
	}
	p.subjs[text] = append(p.subjs[text], subject)
}

func (p *perSubject) String() string {
	if len(p.texts) == 1 {
		return p.texts[0]
	}
	var parts []string
	for _, t := range p.texts {
		parts = append(parts, strings.Join(p.subjs[t], ", ")+": "+t)
	}
	return strings.Join(parts, "; ")
}

// Rank orders findings: severity (a cause with the severity of the worst
// symptom it explains), then estimated impact, then breadth (how many
// subjects), then rule id for a stable order.
func Rank(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool { return less(fs[i], fs[j]) })
}

func less(a, b Finding) bool {
	ra, rb := max(a.rankAs, severityRank[a.Severity]), max(b.rankAs, severityRank[b.Severity])
	if ra != rb {
		return ra > rb
	}
	if a.score != b.score {
		return a.score > b.score
	}
	if len(a.Subjects) != len(b.Subjects) {
		return len(a.Subjects) > len(b.Subjects)
	}
	return a.Rule < b.Rule
}

func str(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return ""
}
