package md

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/diskdoctor/diskdoctor/internal/testutil"
	"github.com/prometheus/procfs"
)

// procfsParse is procfs's own parser of b (it reads only a file: b goes
// through a temporary directory), reduced to the fields parseMDStat keeps;
// panicked reports a panic of the parser.
func procfsParse(t *testing.T, b []byte) (out []mdStat, err error, panicked bool) {
	dir := t.TempDir()
	testutil.Must(t, os.WriteFile(filepath.Join(dir, "mdstat"), b, 0o600))
	pfs, err := procfs.NewFS(dir)
	testutil.Must(t, err)
	defer func() {
		if recover() != nil {
			out, err, panicked = nil, nil, true
		}
	}()
	stats, err := pfs.MDStat()
	if err != nil {
		return nil, err, false
	}
	out = []mdStat{}
	for _, s := range stats {
		m := mdStat{Name: s.Name, Type: s.Type, ActivityState: s.ActivityState,
			DisksActive: s.DisksActive, DisksTotal: s.DisksTotal, DisksFailed: s.DisksFailed, DisksDown: s.DisksDown, DisksSpare: s.DisksSpare,
			BlocksSyncedPct: s.BlocksSyncedPct, BlocksSyncedFinishTime: s.BlocksSyncedFinishTime, BlocksSyncedSpeed: s.BlocksSyncedSpeed,
			Devices: []mdComponent{}}
		for _, d := range s.Devices {
			m.Devices = append(m.Devices, mdComponent{Name: d.Name, Faulty: d.Faulty, Spare: d.Spare, Replacement: d.Replacement})
		}
		out = append(out, m)
	}
	return out, nil, false
}

func portParse(b []byte) (out []mdStat, err error, panicked bool) {
	defer func() {
		if recover() != nil {
			out, err, panicked = nil, nil, true
		}
	}()
	out, err = parseMDStat(b)
	return out, err, false
}

// FuzzParseIsProcfs: the port reads what procfs reads, errors and panics
// included.
func FuzzParseIsProcfs(f *testing.F) {
	if b, err := os.ReadFile(filepath.Join(testutil.SharedSamples(), "sysfs/procfs-fixtures.ttar")); err == nil {
		t := &testing.T{}
		f.Add(ttarFile(t, b, "fixtures/proc/mdstat"))
	}
	for _, s := range []string{
		"Personalities : x\nmd0 : active raid1 sda1[0]\n      1 blocks [1/1] [U]\n\n",
		"md0 : active raid1 sda1[0]\n",
		"Personalities : [raid1]\nmd0 : active raid1 sda1[0]\n      x blocks\n\n\n",
		"Personalities : [raid1]\nmd0 : active raid1 sda1[0]\n      10 blocks [2/1] [U_]\n      recovery = x\n\n",
		"Personalities : [raid1]\nunused devices: <none>\n",
		"Personalities : [raid1]\nmd1 : active (auto-read-only) raid1 sdb1[1] sda1[0](F)\n      10 blocks super 1.2 [2/1] [U_]\n      bitmap: 0/1 pages\n      [=>...]  recovery = 12.6% (37043392/292945152) finish=127.5min speed=33440K/sec\n\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		want, werr, wp := procfsParse(t, b)
		got, gerr, gp := portParse(b)
		if wp != gp || (werr == nil) != (gerr == nil) || !reflect.DeepEqual(got, want) {
			t.Fatalf("port %v, %v, panic %v; procfs %v, %v, panic %v", got, gerr, gp, want, werr, wp)
		}
	})
}
