package rules

import (
	"fmt"
	"maps"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/expr-lang/expr"

	"github.com/diskdoctor/diskdoctor/checks"
	"github.com/diskdoctor/diskdoctor/internal/parse"
)

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
	// Site is the site's configuration (waivers and severities); nil
	// changes nothing.
	Site *Site
	// Now is the run's clock, for waivers' dates; nil is time.Now.
	Now func() time.Time
	// siteSkipped are the site files not used (another user could have
	// written them): the report's skipped entries.
	siteSkipped []checks.Skipped
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
	// merged per subject, which would keep every fact's evidence alive
	// while the rules judge.
	evidence []checks.EvidenceIndex
	ds       *Datasheet
}

// subjects merges observations per subject (a later fact of the same name
// wins) and attaches datasheets to devices; order is the subjects' keys by
// kind and then name. The host's facts are visible to device rules as
// host.<fact>.
func (e *Engine) subjects(res *checks.Result) (map[string]*subject, []string) {
	subs := map[string]*subject{}
	var order []string
	for _, o := range res.Observations {
		k := o.Kind + "/" + o.Subject
		s := subs[k]
		if s == nil {
			s = &subject{name: o.Subject, kind: o.Kind, facts: map[string]any{}}
			subs[k] = s
			order = append(order, k)
		}
		for _, f := range o.Facts() {
			s.facts[f.Name] = f.Value
		}
		if o.HasEvidence() {
			s.evidence = append(s.evidence, o.Evidence())
		}
	}
	// A large machine's disks are a few models: each model's datasheet is
	// looked up once (a lookup tries every model's expression).
	sheets := map[string]*Datasheet{} // model + "\x00" + class
	provider := ""
	if h := subs[checks.KindHost+"/host"]; h != nil {
		provider = str(h.facts["provider"])
	}
	for _, k := range order {
		s := subs[k]
		if s.kind == checks.KindDevice {
			e.classify(s, sheets)
			e.cloudCaps(s, provider)
		}
		if m, ok := s.facts["ctl_controller_model"].(string); ok {
			e.controllerSheet(s, m)
		}
	}
	host := subs[checks.KindHost+"/host"]
	if host == nil {
		host = &subject{name: "host", kind: checks.KindHost, facts: map[string]any{}}
		subs[checks.KindHost+"/host"] = host
		order = append(order, checks.KindHost+"/host")
	}
	e.instanceCaps(host, subs, order)
	sort.SliceStable(order, func(i, j int) bool {
		a, b := subs[order[i]], subs[order[j]]
		if a.kind != b.kind {
			return a.kind < b.kind
		}
		return parse.NaturalLess(a.name, b.name)
	})
	return subs, order
}

// deviceClass is DeviceClass for a device's facts, told apart further by
// what sits behind the SCSI layer: a RAID controller's logical drive is a
// volume of several drives ("raid-volume"), not one; a SATA drive answers
// INQUIRY with the vendor "ATA" through any SCSI/ATA translation layer
// (T10 SAT: the VENDOR IDENTIFICATION field is "ATA"), so behind a SAS
// HBA it is SATA, and a drive a RAID controller passes through with
// another vendor is SAS.
func deviceClass(facts map[string]any) string {
	if facts[checks.FactControllerVolume] == true {
		return "raid-volume"
	}
	transport := str(facts[checks.FactTransport])
	vendor := strings.TrimSpace(str(facts["vendor"]))
	switch {
	case transport == "sas" && strings.EqualFold(vendor, "ATA"):
		transport = "sata"
	case transport == "raid" && vendor != "" && !strings.EqualFold(vendor, "ATA"):
		transport = "sas"
	}
	return DeviceClass(transport, facts[checks.FactRotational], facts[checks.FactPCIeMaxGTs])
}

// classify gives a device subject its class and datasheet; sheets holds
// the lookups made so far.
func (e *Engine) classify(s *subject, sheets map[string]*Datasheet) {
	class := deviceClass(s.facts)
	model := str(s.facts[checks.FactModel])
	if s.facts[checks.FactVirtualDisk] == true {
		// A guest's disk performs as the host's storage does: no drive
		// datasheet applies, whatever it calls itself.
		class, model = "virtual", ""
	}
	key := model + "\x00" + class
	ds, ok := sheets[key]
	if !ok {
		ds = e.Datasheets.Lookup(model, class)
		sheets[key] = ds
	}
	s.ds = ds
	s.facts[checks.FactClass] = class
	if s.ds != nil {
		s.facts[checks.FactClass] = s.ds.Class
	}
	if models, ok := s.facts[checks.FactCtlDriveModels].([]string); ok {
		s.facts[checks.FactCtlDrivesPLP] = e.drivesPLP(models, str(s.facts[checks.FactCtlMedia]))
	}
	e.firmwareFacts(s, model)
}

// firmwareFacts gives a device the firmware table's verdict on its
// firmware: fw_current (the drive's own report from smartctl, else sysfs;
// nil unknown), the first advisory's title, fixed version, severity, bug
// and source (nil where none applies), and the quirks of every entry.
func (e *Engine) firmwareFacts(s *subject, model string) {
	fw := parse.FirstNonEmpty(str(s.facts[checks.FactSmartFirmware]), str(s.facts[checks.FactFirmware]))
	if model == "" {
		model = str(s.facts[checks.FactSmartModel])
	}
	for _, k := range []string{checks.FactFWCurrent, checks.FactFWAdvisory, checks.FactFWFixedVersion, checks.FactFWAdvisorySeverity, checks.FactFWAdvisoryBug, checks.FactFWAdvisorySource, checks.FactFWUpdateTool} {
		s.facts[k] = nil
	}
	quirks := []string{}
	if fw != "" {
		s.facts[checks.FactFWCurrent] = fw
	}
	for _, a := range e.Datasheets.LookupFirmware(model, fw) {
		if a.Quirk != "" {
			quirks = append(quirks, a.Quirk)
		}
		if a.Severity != "" && s.facts[checks.FactFWAdvisory] == nil {
			s.facts[checks.FactFWAdvisory] = a.Title
			s.facts[checks.FactFWFixedVersion] = a.Fixed
			s.facts[checks.FactFWAdvisorySeverity] = a.Severity
			s.facts[checks.FactFWAdvisoryBug] = a.Bug
			s.facts[checks.FactFWAdvisorySource] = a.Source
			s.facts[checks.FactFWUpdateTool] = parse.FirstNonEmpty(a.Update, "the drive vendor's firmware update tool")
		}
	}
	s.facts[checks.FactFWQuirks] = quirks
}

// controllerSheet gives a controller, or a volume of it, its controller's
// datasheet facts (nil where the table has no entry).
func (e *Engine) controllerSheet(s *subject, model string) {
	ds := e.Datasheets.LookupController(model)
	if ds == nil {
		for _, k := range []string{checks.FactCtlDSProduct, checks.FactCtlDSCacheMB, checks.FactCtlDSEnergyPack, checks.FactCtlDSSource} {
			s.facts[k] = nil
		}
		return
	}
	s.facts[checks.FactCtlDSProduct] = ds.Product
	s.facts[checks.FactCtlDSCacheMB] = ds.CacheMB
	s.facts[checks.FactCtlDSEnergyPack] = ds.EnergyPack
	s.facts[checks.FactCtlDSSource] = ds.Source
}

// drivesPLP says whether the drives behind a controller volume protect
// their own caches against power loss: true when every model's datasheet
// says so, false when one's says not (or it is a hard disk, whose cache
// is volatile by construction), nil when a model is not in the table (a
// class default is no evidence of a drive's power-loss protection).
func (e *Engine) drivesPLP(models []string, media string) any {
	if len(models) == 0 {
		return nil
	}
	var all any = true
	for _, m := range models {
		if media == "hdd" {
			return false
		}
		ds := e.Datasheets.Lookup(m, "sata-ssd")
		switch {
		case ds == nil || !ds.ModelEntry:
			all = nil
		case !ds.PLP:
			return false
		}
	}
	return all
}

// envKeys are the names the engine adds to a subject's facts for its
// rules.
var envKeys = [...]string{"subject", "host", "ds", "platform", "platform_quirks"}

// env is the environment a subject's rules see: a copy of its facts with
// subject, host, ds, platform and platform_quirks set (over a fact of the
// same name), so that the subject's facts stay its device entry.
func (e *Engine) env(s *subject, host *subject, platform *Platform) map[string]any {
	env := maps.Clone(s.facts)
	env["subject"] = s.name
	env["host"] = host.facts
	env["ds"] = s.ds.asMap()
	env["platform"] = ""
	env["platform_quirks"] = []string{}
	if platform != nil {
		env["platform"] = platform.Name
		env["platform_quirks"] = append([]string{}, platform.Quirks...)
	}
	return env
}

func (e *Engine) platformOf(host *subject) *Platform {
	vendor, product := str(host.facts[checks.FactSysVendor]), str(host.facts[checks.FactProduct])
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
	title    string
	score    float64
}

// byTitle splits one severity's hits by the title their facts give, in
// the order the titles first appear: each finding's title is true of
// every subject it names.
func byTitle(hits []hit) [][]hit {
	var out [][]hit
	at := map[string]int{}
	for _, h := range hits {
		i, ok := at[h.title]
		if !ok {
			i = len(out)
			at[h.title] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], h)
	}
	return out
}

// Judge evaluates every rule on every subject, groups each rule's hits of
// one severity into one finding, and ranks the findings.
func (e *Engine) Judge(res *checks.Result) ([]Finding, error) {
	subs, order := e.subjects(res)
	j, err := e.judge(subs, order)
	if err != nil {
		return nil, err
	}
	return j.findings, nil
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

func (e *Engine) judge(subs map[string]*subject, order []string) (*judged, error) {
	host := subs[checks.KindHost+"/host"]
	platform := e.platformOf(host)
	states := e.judgeSubjects(subs, order, host, platform)
	var findings, waived []Finding
	var errs evalErrors
	passed := make([][]string, len(e.Rules))
	now := time.Now()
	if e.Now != nil {
		now = e.Now()
	}
	policy := newSitePolicy(e.Site, now)
	// What each rule found is assembled in the rules' order: the findings
	// before ranking, the skipped entries and a strict run's error are
	// those of judging rule by rule.
	for ri, r := range e.Rules {
		st := &states[ri]
		if st.strict != nil {
			return nil, st.strict
		}
		errs.merge(&st.errs)
		passed[ri] = r.notFoundOnItsVolumes(st.passed, st.groups)
		groups, setBy := policy.regrade(r.ID, st.groups)
		for _, sev := range []string{Critical, Warning, Info} {
			hits, accepted := policy.waive(r.ID, groups[sev])
			for _, hs := range byTitle(hits) {
				f, err := e.finding(r, hs, platform, &errs)
				if err != nil {
					return nil, err
				}
				f.SeveritySetBy = setBy
				findings = append(findings, f)
			}
			for _, a := range accepted {
				for _, hs := range byTitle(a.hits) {
					f, err := e.finding(r, hs, platform, &errs)
					if err != nil {
						return nil, err
					}
					w := *a.waiver
					f.SeveritySetBy, f.Waived, f.Waiver = setBy, true, &w
					waived = append(waived, f)
				}
			}
		}
	}
	for i := range findings {
		findings[i].seq = i
	}
	e.linkCauses(findings)
	Rank(findings)
	Rank(waived)
	e.placeNotes(findings, true)
	e.placeNotes(waived, false)
	return &judged{findings: findings, waived: waived, errs: errs.list(), passed: withoutLoggedTrouble(passedList(e.Rules, passed), findings), waivers: policy.states}, nil
}

// judged is what the rules found on a run's subjects: the findings that
// count, those the site waived, the expressions that failed, the rules
// that passed, and what became of each waiver.
type judged struct {
	findings, waived []Finding
	errs             []checks.Skipped
	passed           []Passed
	waivers          []WaiverState
}

// ruleState is what one rule found on the subjects: its hits by severity,
// its failed expressions, and, in a strict run, its first failure.
type ruleState struct {
	groups map[string][]hit
	passed []string // the subjects it was judged on, with known facts, and did not hold for
	errs   evalErrors
	strict error
}

// judgeSubjects evaluates every rule on the subjects named in order, in
// that order, and returns one state per rule. Each subject's environment
// is built once for all its rules; a hit keeps it for its texts and
// remediation.
func (e *Engine) judgeSubjects(subs map[string]*subject, order []string, host *subject, platform *Platform) []ruleState {
	states := make([]ruleState, len(e.Rules))
	for _, k := range order {
		s := subs[k]
		var env map[string]any
		for ri, r := range e.Rules {
			st := &states[ri]
			if !r.appliesTo(s.kind, s.facts) || st.strict != nil {
				continue
			}
			if env == nil {
				env = e.env(s, host, platform)
			}
			sev, title, score, holds, failed := e.judgeRule(r, s, env, st)
			if !holds {
				if !failed && r.known(s, host) && r.isAsked(env) {
					st.passed = append(st.passed, s.name)
				}
				continue
			}
			if st.groups == nil {
				st.groups = map[string][]hit{}
			}
			st.groups[sev] = append(st.groups[sev], hit{s, host, env, sev, title, score})
		}
	}
	return states
}

// judgeRule evaluates rule r on subject s: whether it holds, and with
// which severity, title and impact score, and whether an expression failed (then
// it neither holds nor passes). A failed expression is recorded in st,
// as the strict run's error or a skipped entry; a failed severity_when or
// impact_score makes the rule not hold only in a strict run.
func (e *Engine) judgeRule(r *Rule, s *subject, env map[string]any, st *ruleState) (string, string, float64, bool, bool) {
	ok, err := expr.Run(r.when, env)
	if err != nil {
		if e.Strict {
			st.strict = fmt.Errorf("rule %s on %s: %w", r.ID, s.name, err)
		} else {
			st.errs.add(r.ID, "condition", s.name, err)
		}
		return "", "", 0, false, true
	}
	if ok != true {
		return "", "", 0, false, false
	}
	sev := r.Severity
	for i, c := range r.SeverityWhen {
		v, err := expr.Run(c.prog, env)
		if err != nil {
			if e.Strict {
				st.strict = fmt.Errorf("rule %s on %s: severity_when %d: %w", r.ID, s.name, i+1, err)
				return "", "", 0, false, true
			}
			st.errs.add(r.ID, fmt.Sprintf("severity_when %d", i+1), s.name, err)
			continue
		}
		if v == true {
			sev = c.Severity
			break
		}
	}
	title := r.Title
	for i, c := range r.TitleWhen {
		v, err := expr.Run(c.prog, env)
		if err != nil {
			if e.Strict {
				st.strict = fmt.Errorf("rule %s on %s: title_when %d: %w", r.ID, s.name, i+1, err)
				return "", "", 0, false, true
			}
			st.errs.add(r.ID, fmt.Sprintf("title_when %d", i+1), s.name, err)
			continue
		}
		if v == true {
			title = c.Title
			break
		}
	}
	score := 50.0
	if v, err := expr.Run(r.score, env); err == nil {
		score, _ = toFloat(v)
	} else if e.Strict {
		st.strict = fmt.Errorf("rule %s on %s: impact_score: %w", r.ID, s.name, err)
		return "", "", 0, false, true
	} else {
		st.errs.add(r.ID, "impact_score", s.name, err)
	}
	return sev, title, score, true, false
}

func str(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return ""
}
