package rules

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// heredoc is a file a snippet writes whole: cat > PATH <<'EOF' ... EOF.
type heredoc struct{ path, body string }

var heredocStart = regexp.MustCompile(`(?m)^cat > (\S+) <<'EOF'\n`)

func heredocs(cmd string) []heredoc {
	var out []heredoc
	for _, m := range heredocStart.FindAllStringSubmatchIndex(cmd, -1) {
		rest := cmd[m[1]:]
		end := strings.Index(rest, "\nEOF\n")
		if end < 0 && strings.HasSuffix(rest, "\nEOF") {
			end = len(rest) - 4
		}
		if end < 0 {
			continue
		}
		out = append(out, heredoc{cmd[m[2]:m[3]], rest[:end+1]})
	}
	return out
}

// persistentSnippets renders every persistent command of every rule with
// plain facts.
func persistentSnippets(t *testing.T) map[string]string { return persistentSnippetsWith(t, "sdx") }

// persistentSnippetsWith renders every persistent command of every rule,
// by name, with every fact set to v.
func persistentSnippetsWith(t *testing.T, v string) map[string]string {
	t.Helper()
	rs, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, r := range rs {
		for i, m := range r.Remediation {
			if m.Risk == RiskPersistent {
				out[r.ID+" remediation "+strconv.Itoa(i+1)] = renderWith(m, v)
			}
		}
	}
	return out
}

// Every file a persistent fix writes passes the tool that reads it:
// systemd units through systemd-analyze verify, grub.d fragments through
// the shell that sources them, udev rules through udevadm (verify where the
// installed systemd has it, else a parse by udevadm test on a loop device).
func TestPersistentFilesPassTheirTools(t *testing.T) {
	files := 0
	for name, cmd := range persistentSnippets(t) {
		for _, h := range heredocs(cmd) {
			files++
			switch {
			case strings.HasSuffix(h.path, ".service"):
				analyze, err := exec.LookPath("systemd-analyze")
				if err != nil {
					t.Logf("%s: systemd-analyze not installed (Debian: systemd); %s not verified", name, h.path)
					continue
				}
				dir := t.TempDir()
				p := filepath.Join(dir, filepath.Base(h.path))
				write(t, p, h.body)
				out, err := exec.Command(analyze, "verify", "--man=no", p).CombinedOutput()
				if err != nil || strings.Contains(string(out), filepath.Base(h.path)) {
					t.Errorf("%s: systemd-analyze verify %s: %v\n%s\n%s", name, h.path, err, out, h.body)
				}
			case strings.HasPrefix(h.path, "/etc/default/grub.d/"):
				p := filepath.Join(t.TempDir(), "grub.cfg")
				write(t, p, h.body)
				out, err := exec.Command("sh", "-c", `GRUB_CMDLINE_LINUX_DEFAULT="quiet"; . "$1"; printf %s "$GRUB_CMDLINE_LINUX_DEFAULT"`, "sh", p).CombinedOutput()
				if err != nil || !strings.HasPrefix(string(out), "quiet ") {
					t.Errorf("%s: grub.d fragment does not extend the command line: %v %q", name, err, out)
				}
			case strings.HasSuffix(h.path, ".rules"):
				checkUdevSyntax(t, name, h)
			case strings.HasPrefix(h.path, "/etc/lvm/profile/") && strings.HasSuffix(h.path, ".profile"):
				checkLVMProfile(t, name, h)
			case strings.HasPrefix(h.path, "/etc/multipath/conf.d/") && strings.HasSuffix(h.path, ".conf"):
				checkMultipathConf(t, name, h)
			default:
				t.Errorf("%s writes %s, which no test checks", name, h.path)
			}
		}
	}
	if files < 4 {
		t.Errorf("only %d files found in persistent snippets", files)
	}
}

func write(t *testing.T, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func udevadmVerify() bool {
	if _, err := exec.LookPath("udevadm"); err != nil {
		return false
	}
	// systemd 254 added it; older udevadm exits non-zero on the verb.
	return exec.Command("udevadm", "verify", "--help").Run() == nil
}

func checkUdevSyntax(t *testing.T, name string, h heredoc) {
	t.Helper()
	if udevadmVerify() {
		p := filepath.Join(t.TempDir(), filepath.Base(h.path))
		write(t, p, h.body)
		if out, err := exec.Command("udevadm", "verify", "--resolve-names=never", p).CombinedOutput(); err != nil {
			t.Errorf("%s: udevadm verify: %v\n%s\n%s", name, err, out, h.body)
		}
		return
	}
	out, ok := udevTest(t, map[string]string{filepath.Base(h.path): h.body})
	if !ok {
		return
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, filepath.Base(h.path)) && regexp.MustCompile(`(?i)invalid|ignoring|error|unknown`).MatchString(l) {
			t.Errorf("%s: udevadm test: %s\n%s", name, l, h.body)
		}
	}
}

// udevRan tells whether udevadm test's output queues cmd (a prefix of the
// command line) to run. systemd 252's udevadm test prints "run: '%s'"
// (src/udev/udevadm-test.c); systemd 257's lists the queue as
// "  RUN{program} : %s" (the same file).
func udevRan(out, cmd string) bool {
	return strings.Contains(out, "run: '"+cmd) || strings.Contains(out, "RUN{program} : "+cmd)
}

// udevWrote tells whether udevadm test's output says a rule writes value
// to a sysfs attribute. Test mode writes nothing; it logs what it would
// write (src/udev/udev-rules.c, TK_A_ATTR): systemd 252 "ATTR '%s'
// writing '%s'", systemd 257 "Running in test mode, skipping writing
// ATTR{%s}=\"%s\".", later releases "Running in test mode, skipping
// writing \"%s\" to sysfs attribute \"%s\".".
func udevWrote(out, value string) bool {
	q := regexp.QuoteMeta(value)
	return regexp.MustCompile(`writing '` + q + `'|skipping writing ATTR\{[^}]*\}="` + q + `"|skipping writing "` + q + `" to sysfs attribute`).MatchString(out)
}

// The two matchers read each systemd release's udevadm test wording, and
// a value is not taken for another that starts with it.
func TestUdevTestWordings(t *testing.T) {
	for _, out := range []string{
		"loop0: /etc/udev/rules.d/60-x.rules:2 ATTR '/sys/devices/virtual/block/loop0/queue/scheduler' writing 'mq-deadline'\nrun: '/usr/sbin/hdparm -W1 /dev/loop0'\n",
		"loop0: /etc/udev/rules.d/60-x.rules:2 Running in test mode, skipping writing ATTR{/sys/devices/virtual/block/loop0/queue/scheduler}=\"mq-deadline\".\nQueued commands:\n  RUN{program} : /usr/sbin/hdparm -W1 /dev/loop0\n",
		"loop0: /etc/udev/rules.d/60-x.rules:2 ATTR{queue/scheduler}=\"mq-deadline\": Running in test mode, skipping writing \"mq-deadline\" to sysfs attribute \"queue/scheduler\".\n  RUN{program} : /usr/sbin/hdparm -W1 /dev/loop0\n",
	} {
		if !udevWrote(out, "mq-deadline") || udevWrote(out, "mq") || udevWrote(out, "none") {
			t.Errorf("udevWrote misreads %q", out)
		}
		if !udevRan(out, "/usr/sbin/hdparm -W1 /dev/") || udevRan(out, "/usr/sbin/hdparm -W0") {
			t.Errorf("udevRan misreads %q", out)
		}
	}
}

// udevTest runs `udevadm test` on a loop device of our own, in a private
// mount namespace whose /etc/udev/rules.d holds only the given files (LOOP
// in them stands for the loop device's name). It reports false, having
// logged why, where that cannot run (not root, no udevadm, no loop).
func udevTest(t *testing.T, rules map[string]string) (string, bool) {
	t.Helper()
	for _, tool := range []string{"udevadm", "unshare", "losetup"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Logf("%s not installed (Debian: udev, util-linux): udev rules not checked", tool)
			return "", false
		}
	}
	if os.Geteuid() != 0 {
		t.Log("not root: cannot set up a loop device and a mount namespace for udevadm test")
		return "", false
	}
	img := filepath.Join(t.TempDir(), "disk.img")
	if err := os.WriteFile(img, make([]byte, 1<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	dev, err := exec.CommandContext(ctx, "losetup", "-f", "--show", img).Output()
	if err != nil {
		t.Logf("no loop device (%v): udev rules not checked", err)
		return "", false
	}
	loop := strings.TrimSpace(string(dev))
	defer exec.Command("losetup", "-d", loop).Run()
	dir := t.TempDir()
	for n, body := range rules {
		write(t, filepath.Join(dir, n), strings.ReplaceAll(body, "LOOP", filepath.Base(loop)))
	}
	script := `mount -t tmpfs diskdoctor-test /etc/udev/rules.d && cp "$1"/* /etc/udev/rules.d/ && udevadm test --action=change "/sys/class/block/$2" 2>&1`
	out, err := exec.CommandContext(ctx, "unshare", "-m", "sh", "-c", script, "sh", dir, filepath.Base(loop)).CombinedOutput()
	if err != nil {
		t.Logf("udevadm test could not run (%v): %s", err, out)
		return "", false
	}
	return string(out), true
}

// The write-cache rule files match the disks they are meant for and no
// others: the per-serial rule matches a serial full of udev-special
// characters exactly, the platform rule matches internal ATA disks and
// not USB ones. The loop device plays the disk; a rule earlier in the
// order gives it the disk's udev properties.
func TestWriteCacheUdevRulesMatch(t *testing.T) {
	const serial = "WD#1+2=3@x|y*z[0]"
	obs := device("sda", map[string]any{"wc_on": false, "wc_supported": true, "wc_kernel_on": false, "wc_drive_enabled": false})
	obs.Set("udev_serial", serial)
	fs := judge(t, obs)
	perSerial := ""
	for _, m := range fs[0].Remediation {
		if m.Risk == RiskPersistent {
			perSerial = m.Command
		}
	}
	hs := heredocs(perSerial)
	if len(hs) != 1 || !strings.Contains(hs[0].body, "ENV{ID_SERIAL}") {
		t.Fatalf("no per-serial rules file in %q", perSerial)
	}
	// The platform-wide rule, as the HPE MicroServer gets it.
	quirk := ""
	rs, _ := Load()
	for _, r := range rs {
		if r.ID != "write-cache-disabled" {
			continue
		}
		for _, m := range r.Remediation {
			if m.Risk == RiskPersistent && strings.Contains(m.When, "platform_quirks") && !strings.Contains(m.When, "!(") {
				quirk = renderWith(m, "sdx")
			}
		}
	}
	qs := heredocs(quirk)
	if len(qs) != 1 {
		t.Fatalf("no platform rules file in %q", quirk)
	}
	platformRule := strings.ReplaceAll(qs[0].body, `KERNEL=="sd*"`, `KERNEL=="LOOP"`)
	setter := func(props string) string {
		return `SUBSYSTEM=="block", KERNEL=="LOOP", ` + props + "\n"
	}
	const ran = "/usr/sbin/hdparm -W1 /dev/"
	for _, tt := range []struct {
		name, rule, props string
		match             bool
	}{
		{"serial with udev-special characters", hs[0].body, `ENV{ID_SERIAL}="` + serial + `"`, true},
		{"another serial", hs[0].body, `ENV{ID_SERIAL}="WD#1+2=3@x|y*z[1]"`, false},
		{"internal ATA disk", platformRule, `ENV{ID_BUS}="ata", ENV{ID_ATA_WRITE_CACHE}="1"`, true},
		{"USB disk", platformRule, `ENV{ID_BUS}="usb", ENV{ID_ATA_WRITE_CACHE}="1"`, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, ok := udevTest(t, map[string]string{"65-diskdoctor-test-props.rules": setter(tt.props), "69-diskdoctor-write-cache.rules": tt.rule})
			if !ok {
				t.Skip("udevadm test unavailable here (see log)")
			}
			if !strings.Contains(out, "69-diskdoctor-write-cache.rules") && !strings.Contains(out, "DEVNAME=") {
				t.Fatalf("udevadm test did not run the rules:\n%s", out)
			}
			if got := udevRan(out, ran); got != tt.match {
				t.Errorf("rule ran hdparm: %v, want %v\n%s\n--- udevadm test:\n%s", got, tt.match, tt.rule, out)
			}
		})
	}
}

// Every line a persistent fix writes into a file is at most FileLineWidth
// columns, for any device name: comments are split into several # lines,
// udev rules and unit lines continued with the format's trailing
// backslash, the grub.d assignment continued inside its quotes. The one
// exception is a line that is a single udev match key holding a value from
// the machine (a long serial): udev cannot break a value, so the key
// stands on its own line and is as long as the value makes it.
func TestFileLinesAreShort(t *testing.T) {
	singleKey := regexp.MustCompile(`^\s*[A-Z_]+(\{[^}]*\})?(==|!=|\+=|=)"[^"]*"(, \\)?$`)
	for _, serial := range []string{"sdx", "Samsung_SSD_870_QVO_8TB_S5SSNF0R900000X_with_a_much_longer_tail_0123456789"} {
		n := 0
		for name, cmd := range persistentSnippetsWith(t, serial) {
			for _, h := range heredocs(cmd) {
				for _, l := range strings.Split(strings.TrimSuffix(h.body, "\n"), "\n") {
					n++
					if len(l) <= FileLineWidth {
						continue
					}
					if serial != "sdx" && strings.Contains(l, serial) && singleKey.MatchString(l) {
						continue // the machine's value on a key of its own
					}
					t.Errorf("%s writes a line of %d columns (> %d) into %s:\n%s", name, len(l), FileLineWidth, h.path, l)
				}
			}
		}
		if n < 20 {
			t.Errorf("only %d file lines checked", n)
		}
	}
}

// The scheduler rules file, continued over several lines, is two rules
// and not more: udevadm test on a loop device (playing the rotating SATA
// disk) writes mq-deadline, and the NVMe rule's scheduler "none" is not
// written to it, which a lost continuation would do (its last line would
// stand alone as a rule for every device).
func TestSchedulerUdevRulesMatch(t *testing.T) {
	var body string
	rs, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		for _, m := range r.Remediation {
			if r.ID == "io-scheduler-unsuited" && m.Risk == RiskPersistent {
				if hs := heredocs(renderWith(m, "sdx")); len(hs) == 1 {
					body = hs[0].body
				}
			}
		}
	}
	if !strings.Contains(body, `KERNEL=="sd*"`) || !strings.Contains(body, `ATTR{queue/rotational}=="1"`) {
		t.Fatalf("no scheduler rules file with the keys this test rewrites:\n%s", body)
	}
	// Any loop device, rotational or not (the kernel follows the backing file's disk).
	body = strings.NewReplacer(`KERNEL=="sd*"`, `KERNEL=="LOOP"`, `ATTR{queue/rotational}=="1"`, `ATTR{queue/rotational}=="?"`).Replace(body)
	out, ok := udevTest(t, map[string]string{"60-diskdoctor-scheduler.rules": body})
	if !ok {
		t.Skip("udevadm test unavailable here (see log)")
	}
	if !udevWrote(out, "mq-deadline") {
		t.Errorf("the rotating-disk rule did not set mq-deadline:\n%s\n--- udevadm test:\n%s", body, out)
	}
	if udevWrote(out, "none") {
		t.Errorf("the NVMe rule's scheduler was written to a loop device: a continuation was lost\n%s\n--- udevadm test:\n%s", body, out)
	}
}

// lvmProfileLine is one line of an lvm configuration file (lvm.conf(5),
// SYNTAX): a section opening "name {", its closing "}", or "key = integer".
var lvmProfileLine = regexp.MustCompile(`^\s*(?:([a-z_]+)\s*\{|\}|([a-z_]+)\s*=\s*-?[0-9]+)\s*$`)

// lvmProfilable are the settings of lvm.conf(5) marked "(profilable)" that
// a rule's profile may set, by section.
var lvmProfilable = map[string]map[string]bool{
	"activation": {"thin_pool_autoextend_threshold": true, "thin_pool_autoextend_percent": true},
}

// checkLVMProfile: lvm2 is not installed where the tests run, so the
// profile is held to the syntax lvm reads and to settings a profile may
// carry; one section deep, every section closed.
func checkLVMProfile(t *testing.T, name string, h heredoc) {
	t.Helper()
	section, keys := "", 0
	for _, line := range strings.Split(h.body, "\n") {
		if strings.TrimSpace(line) == "" || strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		m := lvmProfileLine.FindStringSubmatch(line)
		switch {
		case m == nil:
			t.Errorf("%s: %s: not lvm configuration syntax: %q", name, h.path, line)
		case m[1] != "":
			if section != "" {
				t.Errorf("%s: %s: section %s inside %s", name, h.path, m[1], section)
			}
			section = m[1]
		case m[2] != "":
			if !lvmProfilable[section][m[2]] {
				t.Errorf("%s: %s: %s/%s is not a profilable setting", name, h.path, section, m[2])
			}
			keys++
		default:
			if section == "" {
				t.Errorf("%s: %s: } without a section", name, h.path)
			}
			section = ""
		}
	}
	if section != "" || keys == 0 {
		t.Errorf("%s: %s: section %q left open, or no setting (%d)", name, h.path, section, keys)
	}
}
