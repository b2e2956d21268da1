package probes

import (
	"bufio"
	"bytes"
	"context"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strings"
)

// ConfigLine is a line of a configuration file that does something the
// doctor cares about.
type ConfigLine struct {
	File string
	Num  int
	Text string
}

func (c ConfigLine) String() string { return c.Text }

// Source is "file:line" for evidence.
func (c ConfigLine) Source() string {
	if c.Num == 0 {
		return c.File
	}
	return c.File + ":" + itoa(c.Num)
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
func FindCachePersistence(ctx context.Context, h *Host) []ConfigLine {
	var out []ConfigLine
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
func unitFiles(ctx context.Context, h *Host, suffix string) []string {
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
				for _, f := range h.Glob(p + "/*" + suffix) {
					out = append(out, f)
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

// TimerEnabled finds the enabled-timer link of a unit
// (<unitdir>/*.target.wants/<name>), as `systemctl enable` writes it.
func TimerEnabled(ctx context.Context, h *Host, name string) (string, bool) {
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
func FindCronTrim(ctx context.Context, h *Host) []ConfigLine {
	var out []ConfigLine
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

func grepFile(ctx context.Context, h *Host, f string, re *regexp.Regexp) []ConfigLine {
	b, err := h.ReadFile(ctx, f)
	if err != nil {
		return nil
	}
	var out []ConfigLine
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
			out = append(out, ConfigLine{File: f, Num: n, Text: t})
		}
	}
	return out
}

func dedupLines(in []ConfigLine) []ConfigLine {
	seen := map[string]bool{}
	var out []ConfigLine
	for _, l := range in {
		// /lib and /usr/lib are the same directory on merged-/usr systems.
		k := strings.TrimPrefix(l.File, "/usr") + ":" + itoa(l.Num)
		if !seen[k] {
			seen[k] = true
			out = append(out, l)
		}
	}
	return out
}

// PCILink is the PCIe link state of a PCI function.
type PCILink struct {
	Address            string // 0000:01:00.0
	Dir                string // its machine path
	CurSpeed, MaxSpeed string // "8.0 GT/s PCIe"
	CurWidth, MaxWidth string // "2"
	CurGTs, MaxGTs     float64
	CurLanes, MaxLanes int
	Files              map[string]string
}

// ReadNVMeLink reads the PCIe link of an NVMe controller's PCI function via
// /sys/class/nvme/<ctrl>/device. Fabrics controllers have none.
func ReadNVMeLink(ctx context.Context, h *Host, ctrl string) (*PCILink, error) {
	dir, err := h.Resolve("/sys/class/nvme/" + ctrl + "/device")
	if err != nil {
		return nil, err
	}
	l := &PCILink{Address: path.Base(dir), Dir: dir, Files: map[string]string{}}
	read := func(attr string) (string, error) {
		p := dir + "/" + attr
		v, err := h.ReadString(ctx, p)
		if err == nil {
			l.Files[attr] = p
		}
		return v, err
	}
	var errs [4]error
	l.CurSpeed, errs[0] = read("current_link_speed")
	l.MaxSpeed, errs[1] = read("max_link_speed")
	l.CurWidth, errs[2] = read("current_link_width")
	l.MaxWidth, errs[3] = read("max_link_width")
	for _, e := range errs {
		if e != nil {
			return l, e
		}
	}
	l.CurGTs, l.MaxGTs = ParseLinkSpeed(l.CurSpeed), ParseLinkSpeed(l.MaxSpeed)
	l.CurLanes, l.MaxLanes = atoi(l.CurWidth), atoi(l.MaxWidth)
	return l, nil
}

// ParseLinkSpeed reads "16.0 GT/s PCIe" (or older "5 GT/s") as GT/s; 0 when
// unknown ("Unknown", "255 GT/s" placeholders are not speeds).
func ParseLinkSpeed(s string) float64 {
	f := strings.Fields(s)
	if len(f) < 2 || f[1] != "GT/s" {
		return 0
	}
	v := parseFloat(f[0])
	if v <= 0 || v > 128 {
		return 0
	}
	return v
}
