package md

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/diskdoctor/diskdoctor/machine"
	"github.com/prometheus/procfs"
)

// Array is one Linux software RAID array of /proc/mdstat.
type Array struct {
	Name  string // md0
	Level string // raid1, raid5, …
	// State: active, inactive, or what the array is doing: resyncing,
	// recovering, checking, reshaping (procfs' ActivityState).
	State string
	// Action is the sync line's own word: resync, recovery, check, repair,
	// reshape; "" when idle.
	Action string
	// SyncWaiting is "pending" or "delayed" when the sync line says
	// resync=PENDING or resync=DELAYED: the work has not started (0 % at
	// 0 K/s is not a figure). drivers/md/md.c status_resync prints
	// DELAYED while another array on the same disks syncs (md_do_sync
	// waits for it), PENDING while the array is read-only or
	// auto-read-only and md may not write until the first write to it.
	SyncWaiting string
	// ReadOnly is "auto-read-only" or "read-only" from "active
	// (auto-read-only) raid1"; "" when writable.
	ReadOnly string
	Disks    int64 // the members the array needs
	Active   int64
	Down     int64 // "_" in the [UU_] map
	Failed   int64 // members marked (F)
	Spare    int64 // members marked (S)
	// Degraded: fewer active members than the array needs ("_" in the
	// [UU_] map, or fewer active than raid disks). A member marked (F)
	// beside a full map ([5/5] [UUUUU]) holds no slot of the array (a
	// failed spare, or a failed member a spare has already replaced):
	// every slot is in sync, the redundancy is complete. A container
	// (external metadata) is never degraded: it is no array.
	Degraded bool
	// Metadata is the format after "super" (Metadata); Container and
	// ContainerOf what it says about external-metadata containers.
	Metadata     string
	Container    bool
	ContainerOf  string
	SyncPercent  float64
	SyncSpeedKBs float64
	SyncFinish   float64 // minutes
	Members      []Member
	// Lines are the raw lines of the array's block, for evidence.
	Lines []string
}

// Member is a component device (sdb1) with its flags.
type Member struct {
	Name                  string
	Faulty, Spare, Replac bool
}

// Read reads /proc/mdstat with procfs rooted at the machine's /proc, as
// the system probe reads its files. A machine without the md driver has
// no /proc/mdstat: ErrNotAvailable.
//
// procfs opens the file itself, so in a recorded machine it must first
// resolve beneath the root (Host.Uses). Each array's own lines (evidence,
// metadata, the sync line's word) come from a read through the Host: md
// prints the file afresh on each read (md.c md_seq_show), so the two
// reads can differ by a sync's progress, never by a field's meaning.
func Read(ctx context.Context, h *machine.Host) ([]Array, error) {
	if err := ctx.Err(); err != nil {
		return nil, machine.CtxErr(err)
	}
	if err := h.Uses("/proc/mdstat"); err != nil {
		return nil, err
	}
	raw, err := h.ReadFile(ctx, "/proc/mdstat")
	if err != nil {
		return nil, err
	}
	pfs, err := procfs.NewFS(h.Path("/proc"))
	if err != nil {
		return nil, fmt.Errorf("/proc: %w", machine.ErrNotAvailable)
	}
	stats, err := mdStat(pfs)
	if err != nil {
		return nil, err
	}
	return arrays(stats, raw), nil
}

// arrays are procfs' arrays with what it leaves out, read from each
// array's lines of raw.
func arrays(stats []procfs.MDStat, raw []byte) (out []Array) {
	blocks := mdBlocks(raw)
	for _, s := range stats {
		a := Array{
			Name: s.Name, Level: s.Type, State: s.ActivityState,
			Disks: s.DisksTotal, Active: s.DisksActive, Down: s.DisksDown, Failed: s.DisksFailed, Spare: s.DisksSpare,
			SyncPercent: s.BlocksSyncedPct, SyncSpeedKBs: s.BlocksSyncedSpeed, SyncFinish: s.BlocksSyncedFinishTime,
			Lines: blocks[s.Name],
		}
		for _, d := range s.Devices {
			a.Members = append(a.Members, Member{Name: d.Name, Faulty: d.Faulty, Spare: d.Spare, Replac: d.Replacement})
		}
		a.Metadata = Metadata(a.Lines)
		a.Container, a.ContainerOf = Container(a.Metadata), ContainerOf(a.Metadata)
		a.Degraded = !a.Container && (a.Down > 0 || (a.Disks > 0 && a.Active < a.Disks && a.State != "inactive"))
		a.Action = mdAction(a.Lines)
		a.SyncWaiting, a.ReadOnly = mdWaiting(a.Lines)
		if a.SyncWaiting != "" {
			// procfs reads no figures from a waiting sync line; keep
			// them unknown rather than zero.
			a.SyncPercent, a.SyncSpeedKBs, a.SyncFinish = 0, 0, 0
		}
		out = append(out, a)
	}
	return out
}

// mdBlocks splits mdstat into each array's lines ("md0 : active raid1 …"
// and the indented lines after it).
func mdBlocks(raw []byte) map[string][]string {
	out := map[string][]string{}
	cur := ""
	for _, line := range strings.Split(string(raw), "\n") {
		t := strings.TrimSpace(line)
		switch {
		case t == "":
			cur = ""
		case line[0] != ' ' && line[0] != '\t':
			name, _, ok := strings.Cut(t, " : ")
			if ok && !strings.HasPrefix(t, "Personalities") && !strings.HasPrefix(t, "unused") {
				cur = strings.TrimSpace(name)
				out[cur] = append(out[cur], t)
			} else {
				cur = ""
			}
		case cur != "":
			out[cur] = append(out[cur], t)
		}
	}
	return out
}

// mdAction finds the sync line's action word ("[==>....]  recovery = 12.6% …",
// "resync=DELAYED", "check = 3.1%").
func mdAction(lines []string) string {
	for _, l := range lines {
		for _, a := range []string{"recovery", "resync", "check", "repair", "reshape"} {
			if strings.Contains(l, a+" =") || strings.Contains(l, a+"=") {
				return a
			}
		}
	}
	return ""
}

// mdWaiting reads a sync that has not started ("resync=PENDING",
// "resync=DELAYED", md.c status_resync) and the array's read-only mode
// ("md11 : active (auto-read-only) raid1 …", md.c md_seq_show).
func mdWaiting(lines []string) (waiting, readOnly string) {
	for i, l := range lines {
		if i == 0 {
			switch {
			case strings.Contains(l, "(auto-read-only)"):
				readOnly = "auto-read-only"
			case strings.Contains(l, "(read-only)"):
				readOnly = "read-only"
			}
			continue
		}
		switch {
		case strings.Contains(l, "=PENDING"):
			waiting = "pending"
		case strings.Contains(l, "=DELAYED"):
			waiting = "delayed"
		}
	}
	return waiting, readOnly
}

// mdStat is procfs's MDStat, whose parser indexes lines and slices words
// without checking them (a "Personalities : x" line panics it): a
// malformed file is a parse error, never a crash.
func mdStat(pfs procfs.FS) (stats []procfs.MDStat, err error) {
	defer func() {
		if r := recover(); r != nil {
			stats, err = nil, fmt.Errorf("%w: /proc/mdstat: %v", machine.ErrParse, r)
		}
	}()
	stats, err = pfs.MDStat()
	var wrapped interface{ Unwrap() []error }
	switch {
	case err == nil:
		return stats, nil
	case errors.Is(err, procfs.ErrFileParse) && errors.As(err, &wrapped):
		// "ErrFileParse: Cannot parse <path>: cause": the path is
		// where the machine's /proc is mounted, so only the cause is kept.
		errs := wrapped.Unwrap()
		return nil, fmt.Errorf("%w: /proc/mdstat: %w", machine.ErrParse, errs[len(errs)-1])
	}
	return nil, machine.FileErr("/proc/mdstat", machine.UnwrapPathErr(err))
}
