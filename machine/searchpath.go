package machine

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// SystemPath is where the live machine's programs are found: sudo's
// default secure_path (sudoers(5), "secure_path"), never $PATH. The doctor
// runs as root from timers and monitoring agents; a directory someone else
// can write, put first in $PATH (a user's ~/bin, a CI workspace), would
// otherwise run that someone's dmesg or smartctl as root. A fixed list
// also finds the programs where $PATH is empty or minimal (env -i, cron's
// PATH=/usr/bin:/bin, systemd units).
const SystemPath = "/usr/sbin:/usr/bin:/sbin:/bin"

// systemDirs is SystemPath as a list.
var systemDirs = strings.Split(SystemPath, ":")

// vendorDirs are where the RAID vendors' own packages put their command
// line tools, searched after SystemPath: Broadcom's storcli and MegaCli
// and Dell's perccli packages install under /opt/MegaRAID (their rpm and
// deb layouts; the MegaRAID SAS Software User Guide), not into a system
// directory. A vendor directory counts only while root owns it and
// neither group nor others may write it.
var vendorDirs = []string{"/opt/MegaRAID/storcli", "/opt/MegaRAID/perccli", "/opt/MegaRAID/MegaCli"}

// LiveWithSearchPath is the live machine with programs found in dirs
// instead of SystemPath: for tests that put fake programs in a directory
// of their own. The doctor itself never calls it.
func LiveWithSearchPath(dirs []string) *Host {
	h := Live()
	h.runner = execRunner{dirs: dirs, running: &sync.WaitGroup{}}
	return h
}

// FindProgram is the executable name in dirs (SystemPath when dirs is
// nil), or a name with a slash as it is (the doctor's own code names such
// programs, never the examined machine). The file found must also be
// owned by root or the doctor's user and writable by neither group nor
// others: a program in a system directory that anyone may rewrite would
// run as root all the same. Such a program is not run (ErrUntrusted).
func FindProgram(name string, dirs []string) (string, error) {
	if strings.ContainsRune(name, '/') {
		// Named outright (--fio PATH): run as named, when it is there.
		var st unix.Stat_t
		if unix.Stat(name, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || st.Mode&0o111 == 0 {
			return "", &ToolError{Tool: name}
		}
		return name, nil
	}
	if dirs == nil {
		dirs = append(slices.Clone(systemDirs), trustedDirs(vendorDirs)...)
	}
	return findIn(name, dirs, statPath)
}

// statPath is stat(2) of a path of the doctor's own machine.
func statPath(p string) (unix.Stat_t, error) {
	var st unix.Stat_t
	err := unix.Stat(p, &st)
	return st, err
}

// findIn is the first executable regular file name in dirs, by stat
// (links followed), that passes the trust rule of FindProgram.
func findIn(name string, dirs []string, stat func(string) (unix.Stat_t, error)) (string, error) {
	for _, dir := range dirs {
		p := filepath.Join(dir, name)
		st, err := stat(p)
		if err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || st.Mode&0o111 == 0 {
			continue
		}
		if (st.Uid != 0 && int(st.Uid) != os.Geteuid()) || st.Mode&0o022 != 0 {
			return "", fmt.Errorf("%s: %w: owned by uid %d, mode %04o: not run (chown root:root %s; chmod go-w %s)",
				p, ErrUntrusted, st.Uid, st.Mode&0o7777, p, p)
		}
		return p, nil
	}
	return "", &ToolError{Tool: name}
}

// trustedDirs are the directories of dirs that exist, are owned by root
// and are not writable by group or others.
func trustedDirs(dirs []string) []string { return trustedDirsBy(dirs, statPath) }

// trustedDirsBy is trustedDirs by stat.
func trustedDirsBy(dirs []string, stat func(string) (unix.Stat_t, error)) []string {
	var out []string
	for _, d := range dirs {
		st, err := stat(d)
		if err == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR && st.Uid == 0 && st.Mode&0o022 == 0 {
			out = append(out, d)
		}
	}
	return out
}

// ProgramEnv is the environment of a program the doctor runs: its own,
// with PATH the fixed list (so that a program that runs another by name
// finds the same programs) and messages in the C locale (the parsers read
// English).
func ProgramEnv(dirs []string) []string {
	if dirs == nil {
		dirs = systemDirs
	}
	env := []string{"PATH=" + strings.Join(dirs, ":"), "LC_ALL=C"}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PATH=") && !strings.HasPrefix(kv, "LC_ALL=") {
			env = append(env, kv)
		}
	}
	return env
}
