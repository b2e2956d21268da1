package bootcfg

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/diskdoctor/diskdoctor/machine"
)

func TestRunsZFSTrimScript(t *testing.T) {
	for _, tt := range []struct {
		line string
		want bool
	}{
		// debian/zfsutils-linux.cron.d (zfsutils-linux 2.x).
		{`24 0 1-7 * * root if [ $(date +\%w) -eq 0 ] && [ -x /usr/lib/zfs-linux/trim ]; then /usr/lib/zfs-linux/trim; fi`, true},
		{`24 0 1-7 * * root [ $(date +\%w) -eq 0 ] && [ -x /usr/lib/zfs-linux/trim ] && /usr/lib/zfs-linux/trim`, true},
		// The scrub job of the same file does not trim.
		{`24 0 8-14 * * root if [ $(date +\%w) -eq 0 ] && [ -x /usr/lib/zfs-linux/scrub ]; then /usr/lib/zfs-linux/scrub; fi`, false},
		// Testing the script is not running it.
		{`0 0 * * * root [ -x /usr/lib/zfs-linux/trim ] && echo present`, false},
		{`0 0 * * * root /usr/lib/zfs-linux/trimmer`, false},
	} {
		if got := RunsZFSTrimScript(tt.line); got != tt.want {
			t.Errorf("RunsZFSTrimScript(%q) = %v, want %v", tt.line, got, tt.want)
		}
	}
}

func TestZpoolTrimNames(t *testing.T) {
	for _, tt := range []struct {
		line string
		want []string
	}{
		{"0 3 * * 0 root zpool trim tank", []string{"tank"}},
		{"0 3 * * 0 root /sbin/zpool trim -w -r 100M tank sda; echo done", []string{"tank", "sda"}},
		{`@monthly zpool trim "rpool" && zpool trim bpool`, []string{"rpool"}},
		{`for p in $(zpool list -H -o name); do zpool trim "$p"; done`, []string{"$p"}},
		{"zpool status", nil},
	} {
		if got := ZpoolTrimNames(tt.line); !slices.Equal(got, tt.want) {
			t.Errorf("ZpoolTrimNames(%q) = %q, want %q", tt.line, got, tt.want)
		}
	}
}

// The zfsutils-linux job is found in /etc/cron.d; a commented-out copy,
// the scrub job and fstrim jobs are not ZFS trims.
func TestFindCronZFSTrim(t *testing.T) {
	root := t.TempDir()
	write := func(rel, s string) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("etc/cron.d/zfsutils-linux", "PATH=/usr/sbin:/usr/bin\n\n# TRIM the first Sunday of every month.\n"+
		`24 0 1-7 * * root if [ $(date +\%w) -eq 0 ] && [ -x /usr/lib/zfs-linux/trim ]; then /usr/lib/zfs-linux/trim; fi`+"\n"+
		`#24 0 1-7 * * root /usr/lib/zfs-linux/trim`+"\n"+
		`24 0 8-14 * * root if [ $(date +\%w) -eq 0 ] && [ -x /usr/lib/zfs-linux/scrub ]; then /usr/lib/zfs-linux/scrub; fi`+"\n")
	write("etc/crontab", "# 0 1 * * * root zpool trim old\n0 2 * * 6 root zpool trim tank\n")
	write("sys/block/.keep", "")
	write("etc/cron.weekly/fstrim", "#!/bin/sh\nexec fstrim --all\n")
	h, err := machine.Recorded(root)
	if err != nil {
		t.Fatal(err)
	}
	j := FindCronZFSTrim(t.Context(), h)
	if len(j.Script) != 1 || j.Script[0].File != "/etc/cron.d/zfsutils-linux" || j.Script[0].Num != 4 {
		t.Errorf("Script = %+v, want /etc/cron.d/zfsutils-linux line 4 only", j.Script)
	}
	if len(j.Zpool) != 1 || j.Zpool[0].File != "/etc/crontab" || j.Zpool[0].Num != 2 {
		t.Errorf("Zpool = %+v, want /etc/crontab line 2 only", j.Zpool)
	}
}
