package bootcfg

import (
	"context"
	"regexp"
	"strings"

	"github.com/diskdoctor/diskdoctor/machine"
)

// cronPlaces are where cron jobs live: the run-parts directories and the
// system crontabs (cron(8) on Debian reads /etc/crontab and /etc/cron.d).
var cronPlaces = []string{"/etc/cron.daily/*", "/etc/cron.weekly/*", "/etc/cron.monthly/*", "/etc/cron.d/*", "/etc/crontab"}

// ZFSTrimScript is the script Debian's and Ubuntu's zfsutils-linux runs
// from /etc/cron.d/zfsutils-linux on the first Sunday of the month:
//
//	24 0 1-7 * * root if [ $(date +\%w) -eq 0 ] && [ -x /usr/lib/zfs-linux/trim ]; then /usr/lib/zfs-linux/trim; fi
//
// (debian/zfsutils-linux.cron.d in salsa.debian.org/zfsonlinux-team/zfs,
// mirrored at github.com/pop-os/zfs-linux; GPL-2+). It trims each ONLINE
// pool as the pool's org.debian:periodic-trim property says.
const ZFSTrimScript = "/usr/lib/zfs-linux/trim"

var (
	// zfsTrimScriptRun: the script's path as a command word, not only as
	// the operand of the `[ -x … ]` guard in front of it.
	zfsTrimScriptRun = regexp.MustCompile(`(^|[\s;&|()` + "`" + `])` + regexp.QuoteMeta(ZFSTrimScript) + `($|[\s;&|()` + "`" + `])`)
	zfsTrimGuard     = regexp.MustCompile(`-x\s+` + regexp.QuoteMeta(ZFSTrimScript))
	zpoolTrim        = regexp.MustCompile(`\bzpool\s+trim\b`)
)

// ZFSTrimJobs are the cron jobs that trim ZFS pools: lines running the
// zfsutils-linux script, and lines running `zpool trim` themselves.
type ZFSTrimJobs struct {
	Script []Line
	Zpool  []Line
}

// FindCronZFSTrim lists the cron lines that trim ZFS pools. Comments are
// not jobs.
func FindCronZFSTrim(ctx context.Context, h *machine.Host) ZFSTrimJobs {
	var j ZFSTrimJobs
	for _, pat := range cronPlaces {
		for _, f := range h.Glob(pat) {
			for _, l := range grepFile(ctx, h, f, zpoolTrimOrScript) {
				if strings.HasPrefix(l.Text, "#") {
					continue
				}
				if RunsZFSTrimScript(l.Text) {
					j.Script = append(j.Script, l)
				}
				if zpoolTrim.MatchString(l.Text) {
					j.Zpool = append(j.Zpool, l)
				}
			}
		}
	}
	return j
}

var zpoolTrimOrScript = regexp.MustCompile(`\bzpool\s+trim\b|` + regexp.QuoteMeta(ZFSTrimScript))

// RunsZFSTrimScript: the line runs ZFSTrimScript (testing it with -x is
// not running it).
func RunsZFSTrimScript(line string) bool {
	return zfsTrimScriptRun.MatchString(zfsTrimGuard.ReplaceAllString(line, " "))
}

// ZpoolTrimNames are the words after `zpool trim` on a line, options
// dropped: the pools (and devices) it trims. A word holding a shell
// expansion ($, `) is returned as it stands: the caller cannot know what
// it names.
func ZpoolTrimNames(line string) []string {
	loc := zpoolTrim.FindStringIndex(line)
	if loc == nil {
		return nil
	}
	rest := line[loc[1]:]
	if i := strings.IndexAny(rest, ";&|)"); i >= 0 {
		rest = rest[:i]
	}
	var out []string
	skip := false
	for _, w := range strings.Fields(rest) {
		switch {
		case skip:
			skip = false
		case w == "-r":
			// zpool-trim(8): -r rate takes a value.
			skip = true
		case strings.HasPrefix(w, "-"):
		default:
			out = append(out, strings.Trim(w, `"'`))
		}
	}
	return out
}
