package report

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/diskdoctor/diskdoctor/checks"
	"github.com/diskdoctor/diskdoctor/doctor"
	"github.com/diskdoctor/diskdoctor/rules"
)

func textOf(t *testing.T, rep *rules.Report, o textOptions) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := renderText(&b, rep, o); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// checkWidth fails on a line wider than w columns.
//
// The one exception is a line of a here-document's body: it is a line of
// the file the fix writes, printed byte for byte at column 0, and no
// renderer may break it. Rules keep those lines within
// rules.FileLineWidth (rules.TestFileLinesAreShort), so a body line is
// held to that width where the terminal is narrower; and a body line that
// is one udev match key (a serial from the machine, on a line of its own
// because udev cannot continue a value) is as long as its value.
func checkWidth(t *testing.T, what string, text []byte, w int) {
	t.Helper()
	sc := bufio.NewScanner(bytes.NewReader(text))
	body := false
	for n := 1; sc.Scan(); n++ {
		l := sc.Text()
		limit := w
		switch {
		case body && l == "EOF":
			body = false
		case body:
			limit = max(w, rules.FileLineWidth)
			if singleUdevKey.MatchString(l) {
				continue
			}
		case strings.HasSuffix(l, "<<'EOF'"):
			body = true
		}
		if lw := width(l); lw > limit {
			t.Errorf("%s line %d is %d columns wide (> %d):\n%s", what, n, lw, limit, l)
		}
	}
	if body {
		t.Errorf("%s: a here-document is not closed by a line that is exactly EOF", what)
	}
}

// singleUdevKey is a line of a udev rule that holds one key: ID_SERIAL=="…", \
var singleUdevKey = regexp.MustCompile(`^\s*[A-Z_]+(\{[^}]*\})?(==|!=|\+=|=)"[^"]*"(, \\)?$`)

// TestGoldenTextReports: every fixture's text report at 80 columns, the
// default (expected.txt) and -v (expected-v.txt); with its recorded window,
// the triage view (expected-sample.txt); the HPE MicroServer also at 120
// columns. None is wider than its width.
func TestGoldenTextReports(t *testing.T) {
	for _, name := range fixtures(t) {
		t.Run(name, func(t *testing.T) {
			rep := plainReport(t, name)
			dir := filepath.Join(fixturesDir, name)
			for file, o := range map[string]textOptions{
				"expected.txt":   {width: 80},
				"expected-v.txt": {width: 80, verbose: true},
			} {
				got := textOf(t, rep, o)
				checkWidth(t, file, got, o.width)
				golden(t, filepath.Join(dir, file), got)
			}
			if hasWindow(name) {
				got := textOf(t, fixtureReport(t, name), textOptions{width: 80})
				checkWidth(t, "expected-sample.txt", got, 80)
				golden(t, filepath.Join(dir, "expected-sample.txt"), got)
			}
			if name == "hpe-microserver-writethrough" {
				got := textOf(t, rep, textOptions{width: 120})
				checkWidth(t, "expected-120.txt", got, 120)
				golden(t, filepath.Join(dir, "expected-120.txt"), got)
			}
		})
	}
}

// TestTextBudget: the HPE MicroServer's default report fits 63 lines of 80
// columns with every finding visible, and so does every fixture's default
// report at any width from 40 to 200 stay within its width (issue #11).
func TestTextBudget(t *testing.T) {
	rep := plainReport(t, "hpe-microserver-writethrough")
	out := textOf(t, rep, textOptions{width: 80})
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	// 60 lines, and the "Checked and fine" paragraph of issue #25 (a
	// blank line and at most two of text) after the device table, and the
	// first action after the verdict at the end: its command over the four
	// disks' by-id paths (five lines) and its note.
	if len(lines) > 69 {
		t.Errorf("HPE default report: %d lines, budget 69", len(lines))
	}
	for i, f := range rep.Findings {
		head := fmt.Sprintf("%2d. %-8s %s", i+1, strings.ToUpper(f.Severity), f.Title)
		if !strings.Contains(string(out), head[:min(len(head), 60)]) {
			t.Errorf("finding %d (%s) is not visible in the default report", i+1, f.Rule)
		}
	}
	if !strings.HasPrefix(lines[3], "CRITICAL: ") && !strings.HasPrefix(lines[2], "CRITICAL: ") {
		t.Errorf("the verdict is not among the first lines:\n%s", strings.Join(lines[:5], "\n"))
	}
	for _, name := range fixtures(t) {
		rep := plainReport(t, name)
		for _, w := range []int{40, 57, 80, 100, 200} {
			checkWidth(t, fmt.Sprintf("%s at %d", name, w), textOf(t, rep, textOptions{width: w}), w)
			checkWidth(t, fmt.Sprintf("%s -v at %d", name, w), textOf(t, rep, textOptions{width: w, verbose: true}), w)
		}
	}
	t.Logf("HPE default report at 80 columns: %d lines", len(lines))
}

// TestControlCharactersNeverReachTheTerminal: a recorded root whose
// hostname is "x\033[2J\033[HREADY" (clear the screen, print a fake
// verdict) is printed escaped, in every text format of the report
// (issue #16 item 3).
func TestControlCharactersNeverReachTheTerminal(t *testing.T) {
	src := filepath.Join(fixturesDir, "hpe-microserver-writethrough")
	root := filepath.Join(t.TempDir(), "root")
	if out, err := exec.Command("cp", "-a", src, root).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
	hostile := "x\033[2J\033[HREADY\r\a\u202e"
	if err := os.WriteFile(filepath.Join(root, "proc/sys/kernel/hostname"), []byte(hostile+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := doctor.Examine(t.Context(), doctor.Options{Root: root, ProbeTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(rep.Host.Hostname, "\033[2J") {
		t.Fatalf("the recorded hostname did not reach the report (%q): the test would prove nothing", rep.Host.Hostname)
	}
	// Hostile strings everywhere else a machine's text is printed.
	rep.Findings[0].Title += "\033]0;pwned\a"
	rep.Findings[0].Evidence[0].Value += "\033[31m"
	rep.Skipped = append(rep.Skipped, checks.Skipped{Check: "x\033[1mcheck", Reason: "reason\033[0m", Hint: "h\033[0m"})
	for _, o := range []textOptions{{width: 80}, {width: 80, verbose: true}} {
		out := textOf(t, rep, o)
		for _, b := range []byte{0x1b, '\r', '\a'} {
			if bytes.IndexByte(out, b) >= 0 {
				t.Errorf("verbose=%v: a raw %q reached the output", o.verbose, b)
			}
		}
		if bytes.Contains(out, []byte("\u202e")) {
			t.Errorf("verbose=%v: a raw bidi override reached the output", o.verbose)
		}
		if !bytes.Contains(out, []byte(`x\x1b[2J\x1b[HREADY`)) {
			t.Errorf("verbose=%v: the hostname is not shown escaped:\n%s", o.verbose, out[:200])
		}
	}
	var nag bytes.Buffer
	if err := renderNagios(&nag, rep, RunInfo{}); err != nil {
		t.Fatal(err)
	}
	if bytes.IndexByte(nag.Bytes(), 0x1b) >= 0 {
		t.Errorf("nagios: a raw ESC reached the output")
	}
}

// The compact line is laid out from the first subject's own texts: a
// subject's name, a colon or a "; " in what the rule said of another
// subject never reaches it.
func TestContrastIsTheFirstSubjectsTexts(t *testing.T) {
	f := rules.Finding{
		Subjects: []string{"sda", "sdb"},
		Observed: "sda: kernel write through (boot log); sdb: drive cache off",
		PerSubject: []rules.SubjectText{
			{Subject: "sda", Observed: "kernel  write through (boot log: sda: off); drive unknown"},
			{Subject: "sdb", Observed: "drive cache off", Expected: "write back (ST4000: datasheet)"},
		},
	}
	if got, want := contrast(f), "kernel write through — expected: write back"; got != want {
		t.Errorf("contrast = %q, want %q", got, want)
	}
	if got := contrast(rules.Finding{Subjects: []string{"sda"}, Observed: "prose only"}); got != "" {
		t.Errorf("contrast without per-subject texts = %q, want none", got)
	}
}

// Programs missing from Debian packages share one line in the default
// report, with one apt-get command; anything else keeps its own line.
func TestGroupMissingTools(t *testing.T) {
	in := []checks.Skipped{
		{Check: "kernel-log", Reason: "dmesg: tool not installed", Hint: "apt-get install util-linux", Package: "util-linux"},
		{Check: "pressure", Reason: "/proc/pressure/io: not available", Hint: "the kernel does not expose this"},
		{Check: "smartctl -x", Reason: "smartctl: tool not installed", Hint: "apt-get install smartmontools", Package: "smartmontools", Subjects: []string{"sda", "sdb"}},
		{Check: "controller", Reason: "ssacli: tool not installed", Hint: "install ssacli from HPE's MCP repository"},
		{Check: "zpool-list", Reason: "zpool: not recorded", Hint: "the recording holds no output", Package: "zfsutils-linux"},
	}
	got := groupMissingTools(in)
	if len(got) != 4 {
		t.Fatalf("%d entries, want 4: %+v", len(got), got)
	}
	// Each program with its own subjects: the kernel log is no device's.
	if got[0].Check != "dmesg, smartctl (sda, sdb)" || len(got[0].Subjects) != 0 ||
		got[0].Hint != "apt-get install util-linux smartmontools" || got[0].Reason != "tools not installed" {
		t.Errorf("grouped entry %+v", got[0])
	}
	if got[1].Check != "pressure" || got[2].Check != "controller" {
		t.Errorf("the others, in order: %+v", got[1:])
	}
	// A recording's missing command is advice for the recorded machine,
	// never an install on this one (issue #25).
	if got[3].Check != "zpool" || got[3].Reason != "not recorded" || strings.Contains(got[3].Hint, "apt-get") ||
		!strings.Contains(got[3].Hint, "diskdoctor snapshot") || !strings.Contains(got[3].Hint, "zfsutils-linux") {
		t.Errorf("recorded entry %+v", got[3])
	}
}

// A recording's missing programs are named in a sentence ("a and b
// installed there"), and a program whose other commands were recorded is
// not said to be missing: some of its commands are.
func TestGroupMissingToolsRecorded(t *testing.T) {
	got := groupMissingTools([]checks.Skipped{
		{Check: "controller", Reason: "MegaCli64 -AdpBbuCmd -GetBbuStatus -aALL -NoLog: MegaCli64: not recorded", Hint: "the recording holds other MegaCli64 commands but not this one", Answered: true},
		{Check: "kernel-log", Reason: "dmesg: not recorded", Hint: "the recording holds no output", Package: "util-linux"},
		{Check: "smartctl -x", Reason: "smartctl: not recorded", Hint: "the recording holds no output", Package: "smartmontools", Subjects: []string{"sda"}},
	})
	if len(got) != 1 || got[0].Check != "some MegaCli64 commands, dmesg, smartctl (sda)" ||
		got[0].Hint != "record the machine again with diskdoctor snapshot, util-linux and smartmontools installed there" {
		t.Errorf("grouped %+v", got)
	}
}

// From a container (--host-root), programs the host lacks share one line
// whose install is for the host.
func TestGroupMissingToolsOnTheHost(t *testing.T) {
	got := groupMissingTools([]checks.Skipped{
		{Check: "kernel-log", Reason: "dmesg: not installed on the host", Hint: "on the host (not in the container): apt-get install util-linux", Package: "util-linux"},
		{Check: "smartctl -x", Reason: "smartctl: not installed on the host", Hint: "on the host (not in the container): apt-get install smartmontools", Package: "smartmontools", Subjects: []string{"sda"}},
	})
	if len(got) != 1 || got[0].Check != "dmesg, smartctl (sda)" || got[0].Reason != "tools not installed on the host" ||
		got[0].Hint != "on the host (not in the container): apt-get install util-linux smartmontools" {
		t.Errorf("grouped %+v", got)
	}
}

// TestFirstScreenOfEveryFixture: at 80×24 the first screen of every fixture's
// default report, with its recorded window too, holds the verdict and
// every finding's title, and the last line repeats the verdict (issue #25).
func TestFirstScreenOfEveryFixture(t *testing.T) {
	for _, name := range fixtures(t) {
		reps := map[string]*rules.Report{"default": plainReport(t, name)}
		if hasWindow(name) {
			reps["window"] = fixtureReport(t, name)
		}
		for kind, rep := range reps {
			out := strings.TrimRight(string(textOf(t, rep, textOptions{width: 80})), "\n")
			lines := strings.Split(out, "\n")
			screen := strings.Join(lines[:min(firstScreen, len(lines))], "\n")
			verdict, _ := verdictLine(newPalette(io.Discard, false), rep)
			first := wrap(verdict, 80, 0, 2)[0]
			if !strings.Contains(screen, first) {
				t.Errorf("%s (%s): the verdict %q is not on the first screen:\n%s", name, kind, first, screen)
			}
			// The last lines are the verdict and the first action.
			last := wrap(verdict, 80, 0, 2)
			block := strings.Join(last, "\n")
			end := strings.LastIndex(out, block)
			tail := ""
			if end >= 0 {
				tail = out[end+len(block):]
			}
			if end < 0 || len(tail) > 0 && !strings.HasPrefix(tail, "\nFirst ") && !strings.HasPrefix(tail, "\nBusy now") && !strings.HasPrefix(tail, "\nBefore a benchmark") {
				t.Errorf("%s (%s): the last lines are not the verdict and the first action:\n%s", name, kind, strings.Join(lines[max(0, len(lines)-6):], "\n"))
			}
			if acts := firstActions(rep); len(acts) > 0 && !strings.HasPrefix(tail, "\nFirst ") {
				t.Errorf("%s (%s): no first action after the verdict:\n%s", name, kind, tail)
			}
			for i, f := range rep.Findings {
				head := fmt.Sprintf("%2d. %-8s %s", i+1, strings.ToUpper(f.Severity), clean(f.Title))
				// As far as its first line goes, whatever its subjects.
				if head = truncate(head, 60); !strings.Contains(screen, strings.TrimSuffix(head, "…")) {
					t.Errorf("%s (%s): finding %d (%s) is not on the first screen", name, kind, i+1, f.Rule)
				}
			}
		}
	}
}

// Programs grouped on one line keep their own subjects unless they share
// them: df and zpool are not said of the disks smartctl was for.
func TestGroupMissingToolsKeepsEachOnesSubjects(t *testing.T) {
	rec := func(check, tool, pkg string, subs ...string) checks.Skipped {
		return checks.Skipped{Check: check, Reason: tool + ": not recorded", Hint: "x", Package: pkg, Subjects: subs}
	}
	got := groupMissingTools([]checks.Skipped{rec("df", "df", "coreutils"), rec("smartctl -x", "smartctl", "smartmontools", "sda", "sdb", "sdc"), rec("zpool-list", "zpool", "zfsutils-linux")})
	if len(got) != 1 || got[0].Check != "df, smartctl (sda–sdc), zpool" || len(got[0].Subjects) != 0 {
		t.Errorf("grouped %+v", got)
	}
	got = groupMissingTools([]checks.Skipped{rec("hdparm -W", "hdparm", "hdparm", "sda"), rec("smartctl -x", "smartctl", "smartmontools", "sda")})
	if len(got) != 1 || got[0].Check != "hdparm, smartctl" || strings.Join(got[0].Subjects, ",") != "sda" {
		t.Errorf("grouped with shared subjects %+v", got)
	}
}
