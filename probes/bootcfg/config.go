package bootcfg

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strings"

	"github.com/diskdoctor/diskdoctor/internal/parse"
	"github.com/diskdoctor/diskdoctor/machine"
	"github.com/diskdoctor/diskdoctor/probes/block"
)

// Line is a line of a configuration file that does something the
// doctor cares about.
type Line struct {
	File string
	Num  int
	Text string
}

func (c Line) String() string { return c.Text }

// Source is "file:line" for evidence.
func (c Line) Source() string {
	if c.Num == 0 {
		return c.File
	}
	return c.File + ":" + parse.Itoa(c.Num)
}

// Where a write cache is switched back on at boot: udev rules, systemd units,
// Debian's hdparm.conf.
var (
	cacheRuleDirs = []string{"/etc/udev/rules.d", "/lib/udev/rules.d", "/usr/lib/udev/rules.d"}
	unitDirs      = []string{"/etc/systemd/system", "/lib/systemd/system", "/usr/lib/systemd/system"}
	cacheOnLine   = regexp.MustCompile(`hdparm\b[^\n]*\s-W\s*1\b|cache_type[^\n]*write back|ATTR\{queue/write_cache\}\s*=\s*"write back"|sdparm\b[^\n]*--set[= ]WCE(=1)?\b`)
	hdparmConfOn  = regexp.MustCompile(`^\s*write_cache\s*=\s*on\b`)
)

// FindCachePersistence lists the lines that turn a drive write cache on at
// every boot. It does not try to tell which drives a rule matches: a rule
// that exists is reported with its text, and the report shows it.
func FindCachePersistence(ctx context.Context, h *machine.Host) []Line {
	var out []Line
	for _, dir := range cacheRuleDirs {
		for _, f := range h.Glob(dir + "/*.rules") {
			out = append(out, grepFile(ctx, h, f, cacheOnLine)...)
		}
	}
	for _, f := range unitFiles(ctx, h, ".service") {
		out = append(out, grepFile(ctx, h, f, cacheOnLine)...)
	}
	out = append(out, grepFile(ctx, h, "/etc/hdparm.conf", hdparmConfOn)...)
	return dedupLines(out)
}

// unitFiles lists unit files with a suffix under the systemd unit
// directories, one level of *.wants/ included.
func unitFiles(ctx context.Context, h *machine.Host, suffix string) []string {
	var out []string
	for _, dir := range unitDirs {
		ents, err := h.ReadDir(ctx, dir)
		if err != nil {
			continue
		}
		for _, e := range ents {
			p := dir + "/" + e.Name()
			if strings.HasSuffix(e.Name(), suffix) {
				out = append(out, p)
			} else if e.IsDir() || e.Type()&fs.ModeSymlink != 0 && strings.HasSuffix(e.Name(), ".wants") {
				out = append(out, h.Glob(p+"/*"+suffix)...)
			}
		}
	}
	sort.Strings(out)
	return out
}

// TimerEnabled finds the enabled-timer link of a unit
// (<unitdir>/*.target.wants/<name>), as `systemctl enable` writes it.
func TimerEnabled(ctx context.Context, h *machine.Host, name string) (string, bool) {
	for _, dir := range unitDirs {
		for _, l := range h.Glob(dir + "/*.wants/" + name) {
			return l, true
		}
	}
	return "", false
}

var cronTrim = regexp.MustCompile(`\bfstrim\b`)

// FindCronTrim lists cron jobs that run fstrim (Debian before systemd
// timers shipped /etc/cron.weekly/fstrim).
func FindCronTrim(ctx context.Context, h *machine.Host) []Line {
	var out []Line
	for _, pat := range []string{"/etc/cron.daily/*", "/etc/cron.weekly/*", "/etc/cron.monthly/*", "/etc/cron.d/*", "/etc/crontab"} {
		for _, f := range h.Glob(pat) {
			for _, l := range grepFile(ctx, h, f, cronTrim) {
				if !strings.HasPrefix(strings.TrimSpace(l.Text), "#") {
					out = append(out, l)
				}
			}
		}
	}
	return out
}

func grepFile(ctx context.Context, h *machine.Host, f string, re *regexp.Regexp) []Line {
	b, err := h.ReadFile(ctx, f)
	if err != nil {
		return nil
	}
	var out []Line
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		t := strings.TrimSpace(line)
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		if re.MatchString(line) {
			out = append(out, Line{File: f, Num: n, Text: t})
		}
	}
	return out
}

func dedupLines(in []Line) []Line {
	seen := map[string]bool{}
	var out []Line
	for _, l := range in {
		// /lib and /usr/lib are the same directory on merged-/usr systems.
		k := strings.TrimPrefix(l.File, "/usr") + ":" + parse.Itoa(l.Num)
		if !seen[k] {
			seen[k] = true
			out = append(out, l)
		}
	}
	return out
}

// CacheRule is one line of configuration that turns a drive write cache on
// at boot (a udev rule, a unit's ExecStart, an hdparm.conf stanza), with
// what it needs to decide which disks it covers.
type CacheRule struct {
	Line Line
	Kind string // "udev", "unit", "hdparm.conf"
	// KernelOnly: the rule writes queue/write_cache, which changes only
	// what the kernel believes, never the drive's cache.
	KernelOnly bool
	keys       []udevKey
	targets    []string // devices named explicitly (hdparm arguments, a stanza's device)
	perDevice  bool     // RUN uses the event's device ($devnode, %k, $env{DEVNAME})
	disabled   string   // why it never runs ("unit not enabled")
}

type udevKey struct {
	name, attr, op, value string
}

// CachePersistence is every candidate line that may re-enable a write
// cache at boot. Err is set when the configuration could not be read at
// all (no /etc in a recording): then nothing can be said either way.
type CachePersistence struct {
	Rules []CacheRule
	Err   error
}

var (
	udevKeyRe     = regexp.MustCompile(`^\s*([A-Za-z_]+)(?:\{([^}]*)\})?\s*(==|!=|\+=|-=|:=|=)\s*"((?:[^"\\]|\\.)*)"\s*$`)
	hdparmArgs    = regexp.MustCompile(`hdparm\b(.*)`)
	runsPerDevice = regexp.MustCompile(`\$devnode|%N|%k|\$kernel|\$env\{DEVNAME\}|\$name|%E\{DEVNAME\}`)
	stanzaStart   = regexp.MustCompile(`^\s*(/dev/\S+)\s*\{`)
)

// ReadCachePersistence finds every line that may turn a drive write cache
// on at boot. Which disks each covers is decided per disk by Covers.
func ReadCachePersistence(ctx context.Context, h *machine.Host) *CachePersistence {
	cp := &CachePersistence{}
	if _, err := h.ReadDir(ctx, "/etc"); err != nil {
		cp.Err = err // the Host's error names /etc
		return cp
	}
	for _, dir := range cacheRuleDirs {
		for _, f := range h.Glob(dir + "/*.rules") {
			for _, l := range grepFile(ctx, h, f, cacheOnLine) {
				cp.Rules = append(cp.Rules, parseUdevCacheRule(l))
			}
		}
	}
	for _, f := range unitFiles(ctx, h, ".service") {
		lines := grepFile(ctx, h, f, cacheOnLine)
		if len(lines) == 0 {
			// Whether a unit is enabled is asked only of the units that
			// would matter: asked of each of a live machine's ~300 units,
			// the globs were 70 % of a whole check's CPU.
			continue
		}
		enabled := strings.Contains(f, ".wants/")
		if !enabled {
			_, enabled = TimerEnabled(ctx, h, path.Base(f))
		}
		for _, l := range lines {
			r := CacheRule{Line: l, Kind: "unit"}
			if m := hdparmArgs.FindStringSubmatch(l.Text); m != nil {
				r.targets = devArgs(m[1])
			}
			if !enabled {
				r.disabled = "unit not enabled"
			}
			cp.Rules = append(cp.Rules, r)
		}
	}
	cp.Rules = append(cp.Rules, hdparmConfStanzas(ctx, h)...)
	seen := map[string]bool{}
	var out []CacheRule
	for _, r := range cp.Rules {
		// /lib and /usr/lib are the same directory on merged-/usr systems.
		k := strings.TrimPrefix(r.Line.File, "/usr") + ":" + parse.Itoa(r.Line.Num)
		if !seen[k] {
			seen[k] = true
			out = append(out, r)
		}
	}
	cp.Rules = out
	return cp
}

func devArgs(s string) []string {
	var out []string
	for _, f := range strings.Fields(s) {
		f = strings.Trim(f, `"';`)
		if strings.HasPrefix(f, "/dev/") {
			out = append(out, f)
		}
	}
	return out
}

// parseUdevCacheRule splits a rule line into its keys (comma-separated,
// values in double quotes).
func parseUdevCacheRule(l Line) CacheRule {
	r := CacheRule{Line: l, Kind: "udev"}
	for _, part := range splitUdevKeys(l.Text) {
		m := udevKeyRe.FindStringSubmatch(part)
		if m == nil {
			continue
		}
		k := udevKey{name: m[1], attr: m[2], op: m[3], value: m[4]}
		switch {
		case k.op == "==" || k.op == "!=":
			r.keys = append(r.keys, k)
		case k.name == "ATTR" && k.attr == "queue/write_cache" && strings.HasPrefix(k.value, "write back"):
			r.KernelOnly = true
		case k.name == "RUN" || k.name == "PROGRAM":
			if cacheOnLine.MatchString(k.value) {
				if runsPerDevice.MatchString(k.value) {
					r.perDevice = true
				}
				if m := hdparmArgs.FindStringSubmatch(k.value); m != nil {
					r.targets = append(r.targets, devArgs(m[1])...)
				}
				if strings.Contains(k.value, "cache_type") && strings.Contains(k.value, "write back") {
					r.perDevice = true
				}
			}
		}
	}
	return r
}

func splitUdevKeys(s string) []string {
	var out []string
	var cur strings.Builder
	inQ := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && inQ && i+1 < len(s):
			cur.WriteByte(c)
			i++
			cur.WriteByte(s[i])
			continue
		case c == '"':
			inQ = !inQ
		case c == ',' && !inQ:
			out = append(out, cur.String())
			cur.Reset()
			continue
		}
		cur.WriteByte(c)
	}
	return append(out, cur.String())
}

// hdparmConfStanzas reads /etc/hdparm.conf stanzas "/dev/X { ... }" that
// set write_cache = on.
func hdparmConfStanzas(ctx context.Context, h *machine.Host) []CacheRule {
	b, err := h.ReadFile(ctx, "/etc/hdparm.conf")
	if err != nil {
		return nil
	}
	var out []CacheRule
	dev := ""
	for i, line := range strings.Split(string(b), "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "#") {
			continue
		}
		if m := stanzaStart.FindStringSubmatch(t); m != nil {
			dev = m[1]
			continue
		}
		if strings.HasPrefix(t, "}") {
			dev = ""
			continue
		}
		if dev != "" && hdparmConfOn.MatchString(t) {
			out = append(out, CacheRule{Line: Line{File: "/etc/hdparm.conf", Num: i + 1, Text: dev + " { " + t + " }"}, Kind: "hdparm.conf", targets: []string{dev}})
		}
	}
	return out
}

// KernelOnlyWithRun: a kernel-only rule that also runs a drive command
// (hdparm -W1, cache_type) is judged by that command.
func (r CacheRule) KernelOnlyWithRun() bool {
	return r.KernelOnly && (r.perDevice || len(r.targets) > 0)
}

// Covers reports whether the rule re-enables d's cache at boot, and why
// (or why not). Match keys are evaluated against the disk's own udev
// properties and sysfs attributes; keys about ancestors (ATTRS, DRIVERS,
// SUBSYSTEMS, KERNELS) cannot be evaluated from a recording and are taken
// as matching, which the reason says.
func (r CacheRule) Covers(ctx context.Context, h *machine.Host, d *block.Device) (bool, string) {
	if r.disabled != "" {
		return false, r.disabled
	}
	// A rule that only sets queue/write_cache is matched like any other;
	// the caller counts it as a mismatch risk, never as re-enabling the
	// drive's cache (KernelOnly).
	if len(r.targets) > 0 && !r.perDevice {
		for _, t := range r.targets {
			if deviceNamed(h, d, t) {
				return true, "names " + t
			}
		}
		return false, "names " + strings.Join(r.targets, " ") + ", not " + d.Name
	}
	if r.Kind != "udev" {
		return false, "names no device"
	}
	if !r.perDevice && !r.KernelOnly {
		return false, "runs no command on the event's device"
	}
	var assumed []string
	for _, k := range r.keys {
		val, known := udevValue(ctx, h, d, k)
		if !known {
			assumed = append(assumed, k.name)
			continue
		}
		m := udevGlobMatch(k.value, val)
		if (k.op == "==") != m {
			return false, fmt.Sprintf("%s%s%s%q does not hold (%q)", k.name, braced(k.attr), k.op, k.value, val)
		}
	}
	if len(assumed) > 0 {
		return true, "matches (" + strings.Join(assumed, ", ") + " taken as matching: not recorded)"
	}
	return true, "matches"
}

func braced(a string) string {
	if a == "" {
		return ""
	}
	return "{" + a + "}"
}

func deviceNamed(h *machine.Host, d *block.Device, p string) bool {
	if p == "/dev/"+d.Name {
		return true
	}
	for _, l := range d.ByID {
		if l == p {
			return true
		}
	}
	if ok, _ := path.Match(p, "/dev/"+d.Name); ok {
		return true
	}
	return false
}

// udevValue is the disk's value for a match key, and whether it is known.
func udevValue(ctx context.Context, h *machine.Host, d *block.Device, k udevKey) (string, bool) {
	switch k.name {
	case "ACTION":
		return "add", true
	case "SUBSYSTEM":
		return "block", true
	case "KERNEL":
		return d.Name, true
	case "DEVPATH":
		return strings.TrimPrefix(d.SysPath, "/sys"), true
	case "ENV":
		switch k.attr {
		case "DEVTYPE":
			return "disk", true
		case "DEVNAME":
			return "/dev/" + d.Name, true
		}
		if d.Udev == nil {
			return "", false
		}
		return d.Udev.Prop(k.attr), true
	case "ATTR":
		if strings.Contains(k.attr, "..") {
			return "", false
		}
		v, err := h.ReadString(ctx, "/sys/block/"+d.Name+"/"+k.attr)
		if err != nil {
			return "", false
		}
		return v, true
	}
	return "", false
}

// udevGlobMatch matches like udev: alternatives split at '|', each a
// shell glob (fnmatch without FNM_PATHNAME: '*' crosses '/').
func udevGlobMatch(pattern, s string) bool {
	for _, alt := range strings.Split(pattern, "|") {
		if globMatch(alt, s) {
			return true
		}
	}
	return false
}

func globMatch(p, s string) bool {
	// Iterative matching that remembers only the last '*': O(len(p) *
	// len(s)) at worst, so a hostile rules file cannot make it exponential.
	pi, si := 0, 0
	starP, starS := -1, 0
	for si < len(s) {
		if pi < len(p) {
			switch c := p[pi]; c {
			case '*':
				starP, starS = pi, si
				pi++
				continue
			case '?':
				pi, si = pi+1, si+1
				continue
			case '[':
				if end := strings.IndexByte(p[pi+1:], ']'); end >= 0 {
					if ok, err := path.Match(p[pi:pi+end+2], s[si:si+1]); err == nil && ok {
						pi, si = pi+end+2, si+1
						continue
					}
				} else if s[si] == '[' {
					pi, si = pi+1, si+1
					continue
				}
			case '\\':
				if pi+1 < len(p) && p[pi+1] == s[si] {
					pi, si = pi+2, si+1
					continue
				}
			default:
				if c == s[si] {
					pi, si = pi+1, si+1
					continue
				}
			}
		}
		if starP < 0 {
			return false
		}
		// Let the last '*' take one more byte and retry after it.
		starS++
		pi, si = starP+1, starS
	}
	for pi < len(p) && p[pi] == '*' {
		pi++
	}
	return pi == len(p)
}
