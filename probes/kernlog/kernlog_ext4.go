package kernlog

import (
	"regexp"
	"strconv"
	"strings"
)

// EXT4Errors is what the log says of one ext4 filesystem's recorded
// errors: the daily summary print_daily_error_info prints while the
// superblock holds errors (fs/ext4/super.c, 3.x–6.x: "error count since
// last fsck: N", "initial error at time T: func:line…", "last error at
// time T: …"), and the mount-time warning ext4_setup_super prints for a
// filesystem marked with errors ("warning: mounting fs with errors,
// running e2fsck is recommended").
type EXT4Errors struct {
	Dev string // the filesystem's block device as named: sda1, dm-0
	// Count is the last printed error count; HasCount false without one.
	Count    uint64
	HasCount bool
	// First and Last are the last printed "initial error" and "last
	// error" lines' text after "at time ".
	First, Last string
	// MountedWithErrors: the mount-time warning was printed.
	MountedWithErrors bool
	Lines             []Line // the lines used, at most maxEXT4Lines
}

const maxEXT4Lines = 8

var (
	ext4Dev       = regexp.MustCompile(`^EXT4-fs (?:\(([\w.-]+)\)|warning \(device ([\w.-]+)\): \w+:\d+): (.*)$`)
	ext4Count     = regexp.MustCompile(`^error count since last fsck: (\d+)$`)
	ext4ErrorTime = regexp.MustCompile(`^(initial|last) error at time (\d+): (\S.*)$`)
)

// EXT4ErrorInfo finds each ext4 filesystem the log reports recorded
// errors of, in the order they first appear.
func (k *Log) EXT4ErrorInfo() []*EXT4Errors {
	if k == nil {
		return nil
	}
	var out []*EXT4Errors
	by := map[string]*EXT4Errors{}
	for _, l := range k.Lines {
		if !strings.HasPrefix(l.Text, "EXT4-fs ") {
			continue
		}
		m := ext4Dev.FindStringSubmatch(l.Text)
		if m == nil {
			continue
		}
		dev, msg := m[1]+m[2], m[3]
		cm := ext4Count.FindStringSubmatch(msg)
		tm := ext4ErrorTime.FindStringSubmatch(msg)
		mounted := strings.HasPrefix(msg, "warning: mounting fs with errors")
		if cm == nil && tm == nil && !mounted {
			continue
		}
		e := by[dev]
		if e == nil {
			e = &EXT4Errors{Dev: dev}
			by[dev] = e
			out = append(out, e)
		}
		switch {
		case cm != nil:
			if n, err := strconv.ParseUint(cm[1], 10, 32); err == nil {
				e.Count, e.HasCount = n, true
			}
		case tm != nil:
			text := tm[2] + ": " + tm[3]
			if len(text) > 200 {
				text = text[:200]
			}
			if tm[1] == "initial" {
				e.First = text
			} else {
				e.Last = text
			}
		default:
			e.MountedWithErrors = true
		}
		if len(e.Lines) < maxEXT4Lines {
			e.Lines = append(e.Lines, l)
		} else {
			// Keep the latest summary: the oldest lines give way.
			e.Lines = append(e.Lines[1:], l)
		}
	}
	return out
}

// EXT4ErrorInfoLine reports whether a kernel line is one EXT4ErrorInfo
// reads (the daily error summary or the mount-time warning), whatever
// the bound on the lines it keeps.
func EXT4ErrorInfoLine(text string) bool {
	if !strings.HasPrefix(text, "EXT4-fs ") {
		return false
	}
	m := ext4Dev.FindStringSubmatch(text)
	if m == nil {
		return false
	}
	msg := m[3]
	return ext4Count.MatchString(msg) || ext4ErrorTime.MatchString(msg) || strings.HasPrefix(msg, "warning: mounting fs with errors")
}
