package kernlog

import (
	"regexp"
	"strings"
	"time"

	"github.com/diskdoctor/diskdoctor/internal/parse"
)

// The forms a kernel log reaches the doctor in: what dmesg, journalctl and
// syslog daemons write, and what people paste into bug reports. Each prefix
// is taken off the line so the patterns see the kernel's own message.
//
//	raw dmesg, journalctl -k -o short-monotonic's [ 1.23]  [    1.234567] msg
//	dmesg -T / --time-format ctime                          [Mon Nov 20 11:44:21 2023] msg
//	dmesg --time-format iso                                 2023-11-20T11:44:21,123456+01:00 msg
//	dmesg --time-format reltime                             [Nov20 11:44] msg, [  +0.000123] msg
//	dmesg -x (facility and level)                           kern  :err   : [    1.234567] msg
//	syslog, journalctl -k (short)                           Nov 20 11:44:21 host kernel: msg
//	journalctl -o short-precise                             Nov 20 11:44:21.123456 host kernel: msg
//	journalctl -o short-iso, rsyslog RFC 3339               2023-11-20T11:44:21+0100 host kernel: msg
//	journalctl -o short-monotonic                           [    1.234567] host kernel: msg
//
// A syslog or journal line often still carries the kernel's own [ 1.23]
// after "kernel:"; that is the monotonic time and wins over the wall clock.
var (
	// <6> is the printk level of /dev/kmsg and dmesg -r.
	klogLevel = regexp.MustCompile(`^<\d+>`)
	// dmesg -x: "kern  :err   : ".
	klogFacility = regexp.MustCompile(`^(?:kern|user|mail|daemon|auth|syslog|lpr|news|uucp|cron|authpriv|ftp|local\d)\s*:\s*(?:emerg|alert|crit|err|warn|notice|info|debug)\s*: `)
	klogMono     = regexp.MustCompile(`^\[\s*(\d+\.\d+)\]\s?`)
	klogCtime    = regexp.MustCompile(`^\[((?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [ \d]\d \d\d:\d\d:\d\d \d{4})\]\s?`)
	klogReltime  = regexp.MustCompile(`^\[(?:[A-Z][a-z]{2}\d{1,2} \d\d:\d\d|\s*[+-]?\d+\.\d+|<\s*\d+\.\d+>)\]\s?`)
	klogISO      = regexp.MustCompile(`^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:[.,]\d+)?(Z|[+-]\d\d:?\d\d)?\s`)
	klogSyslog   = regexp.MustCompile(`^((?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [ \d]\d \d\d:\d\d:\d\d)(?:\.\d+)?\s`)
	// After a syslog or journal time: "host kernel: " or "kernel: " (some
	// exports drop the host).
	klogSender = regexp.MustCompile(`^(?:\S+\s+)?kernel:\s?`)
)

// splitKernelStamp takes the time prefixes off one line: the monotonic
// seconds since boot (-1 when absent), the wall-clock time (zero when
// absent) and the message.
func splitKernelStamp(raw string) (mono float64, wall time.Time, text string) {
	mono, text = -1, raw
	text = cutLevel(text)
	text = text[len(klogFacility.FindString(text)):]
	if strings.HasPrefix(text, "[") {
		if m := klogCtime.FindStringSubmatch(text); m != nil {
			wall, _ = time.Parse("Mon Jan _2 15:04:05 2006", m[1])
			text = text[len(m[0]):]
		} else if m := klogMono.FindStringSubmatch(text); m != nil {
			mono = monoSeconds(m[1])
			text = text[len(m[0]):]
			// journalctl -o short-monotonic: "[ 1.23] host kernel: msg".
			return mono, wall, cutSender(text)
		} else if m := klogReltime.FindString(text); m != "" {
			text = text[len(m):]
		}
	} else if m := klogISO.FindStringSubmatch(text); m != nil {
		wall = parseISOStamp(m[1], m[2])
		text = cutSender(text[len(m[0]):])
	} else if m := klogSyslog.FindStringSubmatch(text); m != nil {
		rest := text[len(m[0]):]
		if s := klogSender.FindString(rest); s != "" {
			// The year is not in the line: the zero year keeps
			// differences within one log right except across New Year.
			wall, _ = time.Parse("Jan _2 15:04:05", m[1])
			text = rest[len(s):]
		}
	}
	text = cutLevel(text)
	if m := klogMono.FindStringSubmatch(text); m != nil {
		mono = monoSeconds(m[1])
		text = text[len(m[0]):]
	}
	return mono, wall, text
}

func cutLevel(text string) string { return text[len(klogLevel.FindString(text)):] }

func cutSender(text string) string { return text[len(klogSender.FindString(text)):] }

func parseISOStamp(stamp, zone string) time.Time {
	switch {
	case zone == "":
		t, _ := time.Parse("2006-01-02T15:04:05", stamp)
		return t
	case zone == "Z":
		// UTC as the line says, in a zone of its own: time.UTC is what
		// a stamp without any zone parses into (Line.Wall).
		t, _ := time.Parse("2006-01-02T15:04:05Z", stamp+zone)
		return t.In(time.FixedZone("UTC", 0))
	case strings.Contains(zone, ":"):
		t, _ := time.Parse("2006-01-02T15:04:05-07:00", stamp+zone)
		return t
	}
	t, _ := time.Parse("2006-01-02T15:04:05-0700", stamp+zone)
	return t
}

// klogBootBanner is the first message of every boot (init/main.c
// start_kernel: "Linux version 6.1.0-26-amd64 (…)"); a wall-clock log
// restarts its seconds-since-boot there.
const klogBootBanner = "Linux version "

// fillBootTimes gives wall-clock lines without a monotonic stamp their
// seconds since boot, counted from the boot banner above them. Lines
// before any banner, or in a log without one, stay without (-1): when the
// boot was is not known, neither is "during boot".
func fillBootTimes(lines []Line) {
	var boot time.Time
	for i := range lines {
		l := &lines[i]
		if l.Wall.IsZero() {
			continue
		}
		if strings.HasPrefix(l.Text, klogBootBanner) && l.Time < 1 {
			boot = l.Wall
		}
		if l.Time >= 0 || boot.IsZero() {
			continue
		}
		if d := l.Wall.Sub(boot).Seconds(); d >= 0 {
			l.Time = d
			l.TimeFromWall = true
		}
	}
}

// markEarlierBoots flags the lines of every boot but the last in a log that
// spans several (a syslog file, journalctl -k without -b): their seconds
// since boot say nothing about how long ago they were logged. A boot starts
// at its banner, or where the monotonic clock goes back.
func markEarlierBoots(lines []Line) {
	last, prev := 0, -1.0
	for i, l := range lines {
		if strings.HasPrefix(l.Text, klogBootBanner) || (l.Time >= 0 && !l.TimeFromWall && prev >= 0 && l.Time+1 < prev) {
			last = i
		}
		if l.Time >= 0 && !l.TimeFromWall {
			prev = l.Time
		}
	}
	for i := 0; i < last; i++ {
		lines[i].EarlierBoot = true
	}
}

// monoSeconds is a stamp's seconds since boot, or -1 (absent) for one no
// kernel prints: a 400-digit stamp parses as +Inf, which no report may carry.
func monoSeconds(s string) float64 {
	v, err := parse.Finite(s)
	if err != nil {
		return -1
	}
	return v
}
