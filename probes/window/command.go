package window

import (
	"path"
	"strings"
	"unicode/utf8"
)

// Bounds of a process's name as a report shows it: the program and its
// first arguments, each argument (and the program) cut to commandArgMax
// runes.
const (
	commandArgs   = 2
	commandArgMax = 32
)

// sensitiveOptions are words that, in an option's name, mean its value may
// be a secret or an environment (docker run -e/--env, --env-file,
// --password, --token, AWS-style --secret-key …): the command is cut before
// such an option.
var sensitiveOptions = []string{"env", "pass", "token", "secret", "key", "auth", "cred", "cookie", "session"}

// ShortCommand names a process for a person from its argv
// (/proc/PID/cmdline split at NUL bytes): the program's base name and at
// most its first commandArgs arguments, each bounded, "…" when more
// follow. Another process's command line is readable by every user (proc(5),
// /proc/pid/cmdline) and often carries what must not be printed or shared:
// passwords, tokens, a whole environment as JSON. So the name stops before
// the first argument that could be one: an option named for a secret or an
// environment (sensitiveOptions, or the single-letter -e), a NAME=value
// assignment, or anything but plain words (quotes, braces, spaces, control
// characters). "" when argv is empty (a kernel thread).
func ShortCommand(argv []string) string {
	if len(argv) == 0 || argv[0] == "" {
		return ""
	}
	// A process may rewrite argv[0] into a title ("postgres: 15/main:
	// checkpointer"): its first word is the program.
	prog, _, _ := strings.Cut(strings.TrimSpace(argv[0]), " ")
	prog = path.Base(prog)
	if !plainWord(prog) {
		prog = strings.Map(func(r rune) rune {
			if plainRune(r) {
				return r
			}
			return '?'
		}, prog)
	}
	out := []string{bound(prog)}
	args := argv[1:]
	for len(args) > 0 && len(out) <= commandArgs && safeArg(args[0]) {
		out = append(out, bound(args[0]))
		args = args[1:]
	}
	if len(args) > 0 {
		out = append(out, "…")
	}
	return strings.Join(out, " ")
}

// safeArg says whether an argument may be shown (see ShortCommand).
func safeArg(a string) bool {
	if a == "" || !plainWord(a) {
		return false
	}
	if !strings.HasPrefix(a, "-") {
		return !strings.Contains(a, "=") // NAME=value: an environment assignment
	}
	name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
	name = strings.ToLower(name)
	if name == "e" {
		return false
	}
	for _, s := range sensitiveOptions {
		if strings.Contains(name, s) {
			return false
		}
	}
	return true
}

// plainWord: only letters, digits and the punctuation of paths, options and
// sizes.
func plainWord(s string) bool {
	for _, r := range s {
		if !plainRune(r) {
			return false
		}
	}
	return true
}

func plainRune(r rune) bool {
	switch {
	case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		return true
	}
	return strings.ContainsRune("-_./:,+@%=~^", r)
}

func bound(s string) string {
	if utf8.RuneCountInString(s) <= commandArgMax {
		return s
	}
	return string([]rune(s)[:commandArgMax-1]) + "…"
}

// unitSuffixes are the systemd unit types a process's cgroup is named
// after (systemd.unit(5)).
var unitSuffixes = []string{".service", ".scope", ".slice", ".mount", ".socket"}

// Unit is the systemd unit of a cgroup path (its last component that names
// a unit), or the path itself when none does; "" for no cgroup.
func Unit(cgroup string) string {
	parts := strings.Split(strings.Trim(cgroup, "/"), "/")
	for i := len(parts) - 1; i >= 0; i-- {
		for _, suf := range unitSuffixes {
			if strings.HasSuffix(parts[i], suf) {
				return parts[i]
			}
		}
	}
	return cgroup
}
