package checks_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/diskdoctor/diskdoctor/checks"
	"github.com/diskdoctor/diskdoctor/machine"
)

// zfsutilsCron is debian/zfsutils-linux.cron.d of the zfsutils-linux
// package (salsa.debian.org/zfsonlinux-team/zfs, mirrored at
// github.com/pop-os/zfs-linux; GPL-2+).
const zfsutilsCron = `PATH=/usr/local/sbin:/usr/local/bin:/sbin:/bin:/usr/sbin:/usr/bin

# TRIM the first Sunday of every month.
24 0 1-7 * * root if [ $(date +\%w) -eq 0 ] && [ -x /usr/lib/zfs-linux/trim ]; then /usr/lib/zfs-linux/trim; fi

# Scrub the second Sunday of every month.
24 0 8-14 * * root if [ $(date +\%w) -eq 0 ] && [ -x /usr/lib/zfs-linux/scrub ]; then /usr/lib/zfs-linux/scrub; fi
`

// withZFSJob copies the MicroServer (pool "storage" on SATA SSDs
// sda-sdc, autotrim off) and adds the zfsutils-linux cron job and, unless
// value is "", the recorded answer of the property's zfs get.
func withZFSJob(t *testing.T, cron, value string) string {
	t.Helper()
	root := copyFixture(t, "hpe-microserver-writethrough")
	if err := os.MkdirAll(filepath.Join(root, "etc", "cron.d"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "etc", "cron.d", "zfsutils-linux"), []byte(cron), 0o644); err != nil {
		t.Fatal(err)
	}
	if value == "" {
		return root
	}
	if err := os.WriteFile(filepath.Join(root, "commands", "zfs-get-periodic-trim.txt"), []byte("storage\t"+value+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := filepath.Join(root, "commands", "manifest.yaml")
	b, err := os.ReadFile(m)
	if err != nil {
		t.Fatal(err)
	}
	b = append(b, "- argv: [zfs, get, -H, -d, \"0\", -o, \"name,value\", \"org.debian:periodic-trim\"]\n  stdout: zfs-get-periodic-trim.txt\n"...)
	if err := os.WriteFile(m, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return root
}

// The zfsutils-linux job trims a pool as org.debian:periodic-trim says:
// enable trims it; disable, auto and unset leave out a pool of SATA SSDs
// (auto trims only pools of NVMe disks), and the finding names the job
// and the value, and offers zfs set …=enable; a value that could not be
// read leaves the regime unknown.
func TestTrimZFSutilsJob(t *testing.T) {
	for _, tc := range []struct {
		name, cron, value string
		covered           any
		uncovered         string
		off               []string
	}{
		{"enable", zfsutilsCron, "enable", true, "", []string{}},
		{"disable", zfsutilsCron, "disable", false, "org.debian:periodic-trim=disable", []string{"storage"}},
		{"auto", zfsutilsCron, "auto", false, "org.debian:periodic-trim=auto trims only pools whose members are all NVMe", []string{"storage"}},
		{"unset", zfsutilsCron, "-", false, "org.debian:periodic-trim not set (auto) trims only pools whose members are all NVMe", []string{"storage"}},
		{"illegal", zfsutilsCron, "yes", false, `org.debian:periodic-trim="yes" is none of auto, enable, disable`, []string{"storage"}},
		{"unreadable", zfsutilsCron, "", nil, "", []string{}},
		{"commented", strings.ReplaceAll(zfsutilsCron, "24 0 1-7", "#24 0 1-7"), "enable", false, "autotrim=off; a zpool trim runs now", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := trimFacts(t, withZFSJob(t, tc.cron, tc.value), "sda")
			if v, ok := f["trim_covered"]; !ok || v != tc.covered {
				t.Errorf("trim_covered = %v (set %v), want %v", v, ok, tc.covered)
			}
			unc, _ := f["trim_uncovered"].([]string)
			if tc.uncovered == "" && len(unc) != 0 || tc.uncovered != "" && (len(unc) != 1 || !strings.Contains(unc[0], tc.uncovered)) {
				t.Errorf("trim_uncovered = %q, want one naming %q", unc, tc.uncovered)
			}
			if tc.uncovered != "" && tc.off != nil && !strings.Contains(unc[0], "zfsutils-linux cron job (/etc/cron.d/zfsutils-linux)") {
				t.Errorf("trim_uncovered = %q, want the job named", unc)
			}
			off, set := f["trim_zfs_periodic_off"].([]string)
			if tc.off == nil && set || tc.off != nil && !slices.Equal(off, tc.off) {
				t.Errorf("trim_zfs_periodic_off = %q (set %v), want %q", off, set, tc.off)
			}
			if tc.covered == true {
				reg, _ := f["trim_regimes"].([]string)
				if !slices.ContainsFunc(reg, func(s string) bool {
					return strings.Contains(s, "trims pool storage monthly (org.debian:periodic-trim=enable)")
				}) {
					t.Errorf("trim_regimes = %q, want the job", reg)
				}
			}
		})
	}
}

// An unreadable property is a skipped entry naming the command.
func TestTrimZFSutilsJobUnreadableSkipped(t *testing.T) {
	h, err := machine.Recorded(withZFSJob(t, zfsutilsCron, ""))
	if err != nil {
		t.Fatal(err)
	}
	res, err := checks.Run(t.Context(), h, checks.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range res.Skipped {
		if strings.Contains(s.Check+" "+s.Reason+" "+s.Hint, "periodic-trim") {
			return
		}
	}
	t.Errorf("no skipped entry for the unread org.debian:periodic-trim: %+v", res.Skipped)
}

// A cron line of its own that runs zpool trim on the pool trims it; one
// that trims another pool does not.
func TestTrimCronZpoolTrim(t *testing.T) {
	for _, tc := range []struct {
		line    string
		covered any
	}{
		{"0 3 * * 0 root /sbin/zpool trim -r 100M storage\n", true},
		{"0 3 * * 0 root zpool trim tank\n", false},
		{"0 3 * * 0 root for p in $(zpool list -H -o name); do zpool trim \"$p\"; done\n", nil},
	} {
		root := copyFixture(t, "hpe-microserver-writethrough")
		if err := os.WriteFile(filepath.Join(root, "etc", "crontab"), []byte(tc.line), 0o644); err != nil {
			t.Fatal(err)
		}
		f := trimFacts(t, root, "sda")
		if v, ok := f["trim_covered"]; !ok || v != tc.covered {
			t.Errorf("%q: trim_covered = %v (set %v), want %v", tc.line, v, ok, tc.covered)
		}
		if _, set := f["trim_zfs_periodic_off"]; set {
			t.Errorf("%q: trim_zfs_periodic_off set without the zfsutils-linux job", tc.line)
		}
	}
}

// Where the installed script is the 2026 revision (its auto mode also
// trims SATA SSDs that do queued TRIM), a SATA pool with auto may be
// trimmed: unknown, no finding; the job is said among the regimes.
func TestTrimZFSutilsJobNewerScript(t *testing.T) {
	root := withZFSJob(t, zfsutilsCron, "auto")
	script := filepath.Join(root, "usr", "lib", "zfs-linux", "trim")
	if err := os.MkdirAll(filepath.Dir(script), 0o755); err != nil {
		t.Fatal(err)
	}
	// The classification of the 2026 revision, in substance.
	if err := os.WriteFile(script, []byte("#!/bin/bash -u\n# Safe:  NVMe (always queued), non-rotational SATA with queued TRIM.\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	f := trimFacts(t, root, "sda")
	if v, ok := f["trim_covered"]; !ok || v != nil {
		t.Errorf("trim_covered = %v (set %v), want unknown (nil)", v, ok)
	}
	reg, _ := f["trim_regimes"].([]string)
	if !slices.ContainsFunc(reg, func(s string) bool { return strings.Contains(s, "may trim pool storage") }) {
		t.Errorf("trim_regimes = %q, want the job that may trim the pool", reg)
	}
}
