package checks

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/diskdoctor/diskdoctor/machine"
	"github.com/diskdoctor/diskdoctor/probes/block"
	"github.com/diskdoctor/diskdoctor/probes/ext4"
	"github.com/diskdoctor/diskdoctor/probes/kernlog"
	"github.com/diskdoctor/diskdoctor/probes/mount"
)

// fixtures/ext4-errors-recorded: /home's record (8 errors, sysfs and the
// log), the two other ext4 filesystems at 0.
func TestFSErrorsFixture(t *testing.T) {
	h, err := machine.Recorded("../fixtures/ext4-errors-recorded")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(t.Context(), h, Options{ProbeTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]*Observation{}
	for _, o := range res.Observations {
		if o.Check == "fs-errors" {
			got[o.Subject] = o
		}
	}
	home := got["/home"]
	if home == nil || home.Get("ext4_errors_count") != uint64(8) || home.Get("ext4_device") != "sda1" ||
		home.Get("ext4_first_error") != "2017-02-22 01:54:59 UTC in ext4_iget:4223" || home.Get("ext4_mounted_with_errors") != false {
		t.Fatalf("/home: %+v", home)
	}
	if ev := home.EvidenceOf("ext4_errors_count"); len(ev) != 7 || ev[0].Source != "/sys/fs/ext4/sda1/errors_count" {
		t.Errorf("evidence %+v", ev)
	}
	for _, mp := range []string{"/", "/srv/backup"} {
		if o := got[mp]; o == nil || o.Get("ext4_errors_count") != uint64(0) || o.Get("ext4_first_error") != nil {
			t.Errorf("%s: %+v", mp, o)
		}
	}
}

// Without the sysfs record (a kernel or recording without it) the log's
// last summary gives the count; a mount-time warning alone says errors
// without a count; a filesystem neither names is left out.
func TestFSErrorsFromTheLog(t *testing.T) {
	log := &kernlog.Log{Lines: kernlog.Parse([]byte(`[3784708.859860] EXT4-fs (vdb): error count since last fsck: 26
[3784708.859876] EXT4-fs (vdb): initial error at time 1529034124: ext4_find_entry:1312: inode 27787278
[3784708.859880] EXT4-fs (vdb): last error at time 1529054176: ext4_find_entry:1312: inode 27787279
[    3.200000] EXT4-fs warning (device sdc1): ext4_setup_super:2054: warning: mounting fs with errors, running e2fsck is recommended
`))}
	fss := []fsMount{
		{Mount: mount.Mount{MountPoint: "/data", FSType: "ext4", Source: "/dev/vdb"}, dev: "vdb"},
		{Mount: mount.Mount{MountPoint: "/old", FSType: "ext3", Source: "/dev/sdc1"}, dev: "sdc1"},
		{Mount: mount.Mount{MountPoint: "/", FSType: "ext4", Source: "/dev/vda1"}, dev: "vda1"},
	}
	none := func(string) (*ext4.Errors, error) { return nil, machine.ErrNotAvailable }
	obs := fsErrorsObservations(fss, none, log, block.NewMap(nil))
	if len(obs) != 2 {
		t.Fatalf("%d observations", len(obs))
	}
	if o := obs[0]; o.Subject != "/data" || o.Get("ext4_errors_count") != uint64(26) || o.Get("ext4_last_error") != "2018-06-15 09:16:16 UTC in ext4_find_entry:1312: inode 27787279" {
		t.Errorf("/data: count %v, last %v", o.Get("ext4_errors_count"), o.Get("ext4_last_error"))
	}
	if o := obs[1]; o.Subject != "/old" || o.Get("ext4_errors_count") != nil || o.Get("ext4_mounted_with_errors") != true {
		t.Errorf("/old: %v %v", o.Get("ext4_errors_count"), o.Get("ext4_mounted_with_errors"))
	}
}

// The thread found among kthreadd's children; a machine where it has
// exited; a recording without comm files: unknown.
func TestLazyinit(t *testing.T) {
	root := t.TempDir()
	write := func(p, s string) {
		t.Helper()
		p = filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("sys/block/.keep", "")
	write("proc/2/task/2/children", "3 4 5 1201 ")
	write("proc/3/comm", "rcu_gp\n")
	write("proc/4/comm", "rcu_par_gp\n")
	write("proc/1201/comm", "ext4lazyinit\n")
	h, err := machine.Recorded(root)
	if err != nil {
		t.Fatal(err)
	}
	l, err := ext4.FindLazyinit(context.Background(), h)
	if err != nil || !l.Known || l.PID != 1201 || l.Path != "/proc/1201/comm" {
		t.Fatalf("%v %+v", err, l)
	}
	write("proc/1201/comm", "kworker/3:1\n")
	h, _ = machine.Recorded(root)
	if l, err := ext4.FindLazyinit(context.Background(), h); err != nil || !l.Known || l.PID != 0 {
		t.Errorf("exited: %v %+v", err, l)
	}
	// A recording's comm files without the children list are a partial
	// set (the sampling window's): not finding the thread is unknown.
	if err := os.Remove(filepath.Join(root, "proc/2/task/2/children")); err != nil {
		t.Fatal(err)
	}
	h, _ = machine.Recorded(root)
	if l, err := ext4.FindLazyinit(context.Background(), h); err != nil || l.Known {
		t.Errorf("partial recording: %v %+v", err, l)
	}
	empty := t.TempDir()
	for _, d := range []string{"proc/1", "sys/block"} {
		if err := os.MkdirAll(filepath.Join(empty, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	h, _ = machine.Recorded(empty)
	if l, err := ext4.FindLazyinit(context.Background(), h); err != nil || l.Known {
		t.Errorf("no comm files: %v %+v", err, l)
	}
}
