package window

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestShortCommand(t *testing.T) {
	long := strings.Repeat("a", 500)
	for _, tc := range []struct {
		argv []string
		want string
	}{
		{nil, ""},
		{[]string{""}, ""},
		{[]string{"/usr/bin/fio", "--name=competitor", "--filename=/mnt/x/competitor", "--size=64m"}, "fio --name=competitor --filename=/mnt/x/competitor …"},
		{[]string{"fio"}, "fio"},
		{[]string{"/usr/sbin/borg", "create"}, "borg create"},
		// The leak of issue #25: an environment handed over as JSON.
		{[]string{"/usr/bin/python3", "/opt/agent/run.py", "--env", `{"AWS_CA_BUNDLE": "/etc/ssl/x", "AWS_SECRET_ACCESS_KEY": "s3cr3t"}`}, "python3 /opt/agent/run.py …"},
		{[]string{"node", "--env", `{"A":1}`}, "node …"},
		{[]string{"docker", "-e", "TOKEN=abc"}, "docker …"},
		{[]string{"env", "AWS_SECRET_ACCESS_KEY=abc", "rclone"}, "env …"},
		{[]string{"mysqldump", "--password=hunter2", "db"}, "mysqldump …"},
		{[]string{"app", "--api-token", "abc"}, "app …"},
		{[]string{"app", "--Secret-Key=abc"}, "app …"},
		{[]string{"sh", "-c", "dd if=/dev/zero of=/x"}, "sh -c …"},
		// A title rewritten over argv[0].
		{[]string{"postgres: 15/main: checkpointer"}, "postgres:"},
		// Control characters never reach the terminal.
		{[]string{"evil\x1b[2J\x1b[HREADY", "x\x07"}, "evil??2J??HREADY …"},
		{[]string{long, long, long, long}, strings.Repeat("a", 31) + "… " + strings.Repeat("a", 31) + "… " + strings.Repeat("a", 31) + "… …"},
	} {
		if got := ShortCommand(tc.argv); got != tc.want {
			t.Errorf("ShortCommand(%q) = %q, want %q", tc.argv, got, tc.want)
		}
	}
}

func TestUnit(t *testing.T) {
	for cg, want := range map[string]string{
		"":                                 "",
		"/system.slice/borgbackup.service": "borgbackup.service",
		"/user.slice/user-0.slice/session-2.scope": "session-2.scope",
		"/system.slice/docker-ab12.scope/init":     "docker-ab12.scope",
		"/machine/qemu-1":                          "/machine/qemu-1",
	} {
		if got := Unit(cg); got != want {
			t.Errorf("Unit(%q) = %q, want %q", cg, got, want)
		}
	}
}

// FuzzShortCommand: whatever a process puts in its command line, the name
// shown is bounded, one line of printable plain words, and never holds a
// quote, a brace or an assignment's value.
func FuzzShortCommand(f *testing.F) {
	f.Add("/usr/bin/python3\x00run.py\x00--env\x00{\"AWS_CA_BUNDLE\": \"x\"}")
	f.Add("fio\x00--name=a\x00--filename=/mnt/a")
	f.Add("\x1b]0;title\x07\x00\xff\xfe")
	f.Fuzz(func(t *testing.T, cmdline string) {
		got := ShortCommand(strings.Split(cmdline, "\x00"))
		if n := utf8.RuneCountInString(got); n > (commandArgs+1)*(commandArgMax+1)+2 {
			t.Fatalf("%d runes: %q", n, got)
		}
		for _, r := range got {
			if r != ' ' && r != '…' && r != '?' && !plainRune(r) {
				t.Fatalf("%q in %q", r, got)
			}
		}
		if strings.ContainsAny(got, "\"'{}") {
			t.Fatalf("quote or brace in %q", got)
		}
	})
}
