package checks

import (
	"strconv"
	"strings"

	"github.com/diskdoctor/diskdoctor/internal/shellquote"
	"github.com/diskdoctor/diskdoctor/probes/raidctl"
)

// ctlRun turns one tool's inventory into facts, each with the command and
// the line (or JSON member) it came from.
type ctlRun struct {
	inv *raidctl.Inventory
}

// Which of a family's commands holds a kind of value: Smart Array prints
// everything in one output; storcli's controller output holds the energy
// pack, the VD list (current policy) and the PD list, its vall output the
// VD properties and its drive output the error counters; MegaCli's are
// logical drives, energy pack and physical drives. Both have a fourth,
// the patrol read state.
const (
	outController = iota
	outVolumes
	outDrives
	outPatrolRead
)

func (r *ctlRun) argv(out int) []string {
	switch r.inv.Family {
	case raidctl.FamilyStorcli:
		return raidctl.StorcliArgvs(r.inv.Tool)[out]
	case raidctl.FamilyMegaCli:
		// MegaCli has no controller output; its energy pack is the
		// second command, its logical drives the first.
		return raidctl.MegaCliArgvs(r.inv.Tool)[[]int{1, 0, 2, 3}[out]]
	case raidctl.FamilyArcconf:
		return raidctl.ArcconfArgv(r.inv.Tool)
	}
	return raidctl.SmartArrayArgv(r.inv.Tool)
}

// ev is v's evidence. A storcli value names the JSON object it sits in,
// which says which of the three outputs it is from.
func (r *ctlRun) ev(out int, v raidctl.Value) []Evidence {
	if !v.Set {
		return nil
	}
	if r.inv.Family == raidctl.FamilyStorcli {
		switch t := v.Line.Text; {
		case strings.Contains(t, "Controller Properties: PR Current State"):
			out = outPatrolRead
		case strings.HasPrefix(t, "Drive /"):
			out = outDrives
		case strings.Contains(t, " VD LIST:"), strings.Contains(t, " PD LIST:"):
			out = outController
		case strings.HasPrefix(t, "/c"), strings.HasPrefix(t, "VD"), strings.HasPrefix(t, "PDs for VD"):
			out = outVolumes
		}
	}
	src := shellquote.Join(r.argv(out))
	if v.Line.N > 0 {
		src += " line " + strconv.Itoa(v.Line.N)
	}
	return []Evidence{{Source: src, Value: v.Line.Text}}
}

func valueOrNil(v raidctl.Value) any {
	if !v.Set || v.Text == "" {
		return nil
	}
	return v.Text
}

// onOff reads the tools' words for a setting that is on or off; nil for
// "Disk's Default", "Default" and anything else that does not say.
func onOff(v raidctl.Value) any {
	switch strings.ToLower(strings.TrimSpace(v.Text)) {
	case "enabled", "enable", "on", "yes", "true":
		return true
	case "disabled", "disable", "off", "no", "false":
		return false
	}
	return nil
}

// cacheVerdict is what the controller's cache does for one volume.
type cacheVerdict struct {
	state  string // ok, disabled, degraded, write-through, unknown
	reason string
	ev     []Evidence
	// unprotected are the reasons a volume writes back without
	// power-loss protection.
	unprotected []string
	unprotEv    []Evidence
	present     any // cache module present: true, false, nil unknown
	energy      any // battery, capacitor, none, nil unknown
	ratio       any // write share of the cache in percent (Smart Array)
}

// energyState classifies a battery's or capacitor's status: ok, charging
// (a learn cycle or a recharge: temporary), failed, or "" when unknown.
// The words are those of HPE's ssacli ("OK", "Recharging", "Failed
// (Replace Batteries)") and Broadcom's tools ("Optimal", "Learning",
// "Degraded(Charging)", "Failed", "Missing"); arcconf's flash modules
// say "Ready" when charged.
func energyState(p raidctl.EnergyPack) string {
	s := strings.ToLower(p.Status.Text)
	for _, d := range p.Details {
		t := strings.ToLower(d.Line.Text)
		switch {
		case strings.Contains(t, "replacement required") && strings.HasSuffix(t, "yes"),
			strings.Contains(t, "about to fail") && strings.HasSuffix(t, "yes"):
			return "failed"
		case strings.Contains(t, "learn cycle active") && strings.HasSuffix(t, "yes"):
			s += " learning"
		}
	}
	switch {
	case s == "":
		return ""
	case strings.Contains(s, "fail"), strings.Contains(s, "missing"), strings.Contains(s, "replace"), strings.Contains(s, "not present"):
		return "failed"
	case strings.Contains(s, "learn"), strings.Contains(s, "charg"):
		return "charging"
	case strings.Contains(s, "degraded"):
		return "failed"
	case s == "ok" || s == "optimal" || s == "ready":
		return "ok"
	}
	return ""
}

func (r *ctlRun) energyFacts(c *raidctl.Controller) any {
	p := c.EnergyPack
	absent := strings.EqualFold(p.Present.Text, "absent") || strings.EqualFold(p.Present.Text, "no") || p.Present.Text == "0"
	switch {
	case absent:
		return "none"
	case p.Kind != "":
		return p.Kind
	case p.Status.Set:
		return "battery"
	case r.inv.Family == raidctl.FamilySmartArray:
		// ssacli prints "Cache Backup Power Source" and the pack's status
		// only when one is installed (the P212 and P410i of
		// fixtures/hpe-smartarray-no-write-cache print neither).
		return "none"
	}
	return nil
}

// cacheModule: whether the controller has cache memory at all.
func cacheModule(c *raidctl.Controller) any {
	t := strings.ToLower(strings.TrimSpace(c.CacheBoardPresent.Text))
	switch {
	case !c.CacheBoardPresent.Set:
		return nil
	case t == "true" || t == "present":
		return true
	case t == "false" || t == "absent" || strings.HasPrefix(t, "0mb") || t == "0 mb" || t == "0":
		return false
	}
	return true // a size: "512MB"
}

// writeRatio is the write share of "25% Read / 75% Write".
func writeRatio(v raidctl.Value) any {
	i := strings.Index(v.Text, "/")
	if i < 0 {
		return nil
	}
	w := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v.Text[i+1:]), "Write"))
	n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(w), "%"))
	if err != nil {
		return nil
	}
	return float64(n)
}

func writePolicy(v raidctl.Value) string {
	s := strings.ToLower(strings.ReplaceAll(v.Text, " ", ""))
	switch {
	case strings.Contains(s, "always"), strings.Contains(s, "awb"):
		return "always-write-back"
	case strings.Contains(s, "writeback"), s == "wb":
		return "write-back"
	case strings.Contains(s, "writethrough"), s == "wt":
		return "write-through"
	}
	return ""
}

// verdict decides the cache state of volume v of controller c (v nil: the
// controller alone).
func (r *ctlRun) verdict(c *raidctl.Controller, v *raidctl.Volume) cacheVerdict {
	cv := cacheVerdict{state: "ok", present: cacheModule(c), ratio: writeRatio(c.CacheRatio)}
	if !c.CacheStatus.Set && !c.CacheBoardPresent.Set && !c.EnergyPack.Status.Set && !c.EnergyPack.Present.Set &&
		len(c.EnergyPack.Details) == 0 && (v == nil || !v.CurrentWrite.Set) {
		// The tool said nothing about the cache (its controller output
		// failed): unknown, not healthy.
		cv.state = "unknown"
	}
	kind := r.energyFacts(c)
	cv.energy = kind
	energy := energyState(c.EnergyPack)
	packEv := r.energyEvidence(c.EnergyPack)
	status := strings.ToLower(c.CacheStatus.Text)
	switch {
	case cv.present == false:
		cv.state, cv.reason = "write-through", "the controller has no cache module"
		cv.ev = r.ev(outController, c.CacheBoardPresent)
	case strings.Contains(status, "disabled") || strings.Contains(status, "fail"):
		cv.state, cv.reason = "disabled", "cache status "+c.CacheStatus.Text
		if c.CacheStatusDetail.Set {
			cv.reason += " (" + c.CacheStatusDetail.Text + ")"
		}
		if t := energyText(c.EnergyPack); t != "" {
			name, _ := kind.(string)
			if name == "" || name == "none" {
				name = "energy pack"
			}
			cv.reason += "; " + name + ": " + t
		}
		cv.ev = append(r.ev(outController, c.CacheStatus), r.ev(outController, c.CacheStatusDetail)...)
		cv.ev = append(cv.ev, packEv...)
		// Temporarily disabled while the pack charges is the charge's
		// wait; permanently disabled is not (HPE: a failed cache module
		// or backup power that will not recover by itself).
		if energy == "charging" && !strings.Contains(status, "permanently") {
			cv.state = "degraded"
		}
	case strings.Contains(status, "not configured"):
		cv.state, cv.reason, cv.ev = "write-through", "cache status "+c.CacheStatus.Text, r.ev(outController, c.CacheStatus)
	case energy == "failed":
		cv.state, cv.reason, cv.ev = "disabled", "energy pack: "+energyText(c.EnergyPack), packEv
	case energy == "charging":
		cv.state, cv.reason, cv.ev = "degraded", "energy pack: "+energyText(c.EnergyPack), packEv
	}
	if cv.state == "ok" && cv.ratio == float64(0) {
		cv.state, cv.reason, cv.ev = "write-through", "no cache share for writes ("+c.CacheRatio.Text+")", r.ev(outController, c.CacheRatio)
	}
	if cv.state == "ok" && r.inv.Family == raidctl.FamilySmartArray && kind == "none" && onOff(c.NoBatteryWrite) != true {
		// Smart Array caches writes only under a battery or capacitor,
		// unless No-Battery Write Cache is on (HPE Smart Array SR Gen10
		// Configuration Guide).
		cv.state, cv.reason = "write-through", "no battery or capacitor: writes are not cached"
	}
	if v != nil {
		r.volumePolicy(&cv, v, energy)
	}
	if onOff(c.NoBatteryWrite) == true {
		cv.unprotected = append(cv.unprotected, "no-battery write cache enabled: "+nbwcRisk(kind, energy))
		cv.unprotEv = append(cv.unprotEv, r.ev(outController, c.NoBatteryWrite)...)
	}
	return cv
}

// nbwcRisk says what No-Battery Write Cache does with the energy pack the
// controller has: it lets the controller write back without a working
// battery or capacitor (HPE Smart Array SR Gen10 Configuration Guide), so
// with a healthy pack it is the risk of the pack failing, not a loss of
// protection now.
func nbwcRisk(kind any, energy string) string {
	switch {
	case kind == "none":
		return "the controller writes back with no battery or capacitor at all"
	case energy == "failed":
		return "the controller keeps writing back although its battery or capacitor has failed"
	case energy == "charging":
		return "the controller writes back while its battery or capacitor charges, and would if it failed"
	case energy == "ok":
		return "the battery or capacitor is OK now, but the controller would keep writing back if it failed or were removed"
	}
	return "the controller writes back even without a working battery or capacitor"
}

// volumePolicy compares a volume's configured and current write policy:
// write-through against a configured write-back is the controller's
// fallback (a bad energy pack, a learn cycle); write-through configured on
// a controller without an energy pack is its design.
func (r *ctlRun) volumePolicy(cv *cacheVerdict, v *raidctl.Volume, energy string) {
	conf, cur := writePolicy(v.ConfiguredWrite), writePolicy(v.CurrentWrite)
	if cur == "always-write-back" || conf == "always-write-back" {
		cv.unprotected = append(cv.unprotected, "always write-back: the volume writes back even with a failed or missing battery")
		cv.unprotEv = append(cv.unprotEv, r.ev(outVolumes, v.CurrentWrite)...)
	}
	if v.CacheBadBBU.Set {
		cv.unprotected = append(cv.unprotected, "\"Write Cache OK if Bad BBU\": the volume writes back even with a failed or missing battery")
		cv.unprotEv = append(cv.unprotEv, r.ev(outVolumes, v.CacheBadBBU)...)
	}
	if strings.EqualFold(v.Caching.Text, "Disabled") && cv.state == "ok" {
		cv.state, cv.reason, cv.ev = "write-through", "caching disabled for this logical drive", r.ev(outVolumes, v.Caching)
	}
	if cur != "write-through" || cv.state == "disabled" || cv.state == "degraded" {
		return
	}
	switch {
	case conf == "write-back" && energy == "charging":
		cv.state, cv.reason = "degraded", "configured write-back, running write-through while the energy pack charges or learns"
	case conf == "write-back":
		cv.state, cv.reason = "disabled", "configured write-back, running write-through"
	default:
		cv.state, cv.reason = "write-through", "write-through configured"
	}
	cv.ev = append(append(cv.ev, r.ev(outVolumes, v.ConfiguredWrite)...), r.ev(outVolumes, v.CurrentWrite)...)
}

// energyText is the pack's state as its tool put it: the status line, or
// the flags that explain it where the status is blank (MegaCli prints
// "Battery state: " empty beside "Battery Replacement required : Yes").
func energyText(p raidctl.EnergyPack) string {
	var parts []string
	if p.Status.Text != "" {
		parts = append(parts, p.Status.Text)
	}
	for _, d := range p.Details {
		parts = append(parts, strings.Join(strings.Fields(d.Line.Text), " "))
	}
	return strings.Join(parts, "; ")
}

func (r *ctlRun) energyEvidence(p raidctl.EnergyPack) []Evidence {
	ev := r.ev(outController, p.Status)
	for _, d := range p.Details {
		ev = append(ev, r.ev(outController, d)...)
	}
	return ev
}
