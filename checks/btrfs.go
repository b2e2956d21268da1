package checks

import (
	"context"
	"slices"
	"strconv"

	"github.com/diskdoctor/diskdoctor/probes/block"
	"github.com/diskdoctor/diskdoctor/probes/kernlog"
)

func init() {
	Register(Check{Name: "btrfs", Description: "btrfs's persistent device error counters (write, read, flush, corruption, generation) as the kernel log last printed them, at mount or when one grew, on the disk of the device they name", Run: btrfsCheck})
}

// btrfsCheck puts each btrfs device's last printed error counters on the
// judged disk beneath it. btrfs prints them at mount only when one is not
// zero (fs/btrfs/volumes.c, btrfs_dev_stat_print_on_load), so a disk with
// no such line gets no observation: its counters are unknown from the log
// alone, not zero.
func btrfsCheck(ctx context.Context, env *Env) []*Observation {
	log, err := env.KernelLog(ctx)
	if err != nil || log == nil {
		return nil
	}
	stats := log.BTRFSDeviceStats()
	if len(stats) == 0 {
		return nil
	}
	judged := map[string]bool{}
	for _, d := range env.Judged(ctx) {
		judged[d.Name] = true
	}
	return btrfsObservations(stats, env.DevMap(ctx), judged)
}

func btrfsObservations(stats []*kernlog.BTRFSDevStats, m *block.Map, judged map[string]bool) []*Observation {
	type sum struct {
		wr, rd, flush, corrupt, gen uint64
		devs                        []string
		ev                          []Evidence
	}
	by := map[string]*sum{}
	var order []string
	for _, s := range stats {
		for _, disk := range m.WholeDisks(s.Dev) {
			if !judged[disk] {
				continue
			}
			t := by[disk]
			if t == nil {
				t = &sum{}
				by[disk] = t
				order = append(order, disk)
			}
			t.wr += s.Write
			t.rd += s.Read
			t.flush += s.Flush
			t.corrupt += s.Corrupt
			t.gen += s.Generation
			if !slices.Contains(t.devs, s.Dev) {
				t.devs = append(t.devs, s.Dev)
			}
			t.ev = append(t.ev, Evidence{"dmesg line " + strconv.Itoa(s.Line.Num), s.Line.Raw})
		}
	}
	var out []*Observation
	for _, disk := range order {
		t := by[disk]
		o := NewObservation("btrfs", KindDevice, disk)
		o.Set("btrfs_dev_errs", t.wr+t.rd+t.flush+t.corrupt+t.gen, t.ev...)
		o.Set("btrfs_dev_write_errs", t.wr)
		o.Set("btrfs_dev_read_errs", t.rd)
		o.Set("btrfs_dev_flush_errs", t.flush)
		o.Set("btrfs_dev_corruption_errs", t.corrupt)
		o.Set("btrfs_dev_generation_errs", t.gen)
		o.Set("btrfs_dev_names", t.devs)
		out = append(out, o)
	}
	return out
}
