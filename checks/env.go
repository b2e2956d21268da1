package checks

import (
	"context"

	"github.com/diskdoctor/diskdoctor/machine"
	"github.com/diskdoctor/diskdoctor/probes/block"
	"github.com/diskdoctor/diskdoctor/probes/drive"
	"github.com/diskdoctor/diskdoctor/probes/kernlog"
	"github.com/diskdoctor/diskdoctor/probes/md"
	"github.com/diskdoctor/diskdoctor/probes/mount"
	"github.com/diskdoctor/diskdoctor/probes/system"
	"github.com/diskdoctor/diskdoctor/probes/zfs"
)

// Env is what a check sees: the host, the options, and probes that are
// shared between checks, each read once per run under its own timeout.
type Env struct {
	Host *machine.Host
	Opts Options

	// run is the context of the run as a whole (its deadline, Ctrl-C). A
	// shared probe is computed under it, not under the context of whichever
	// check asked first: that check's cancellation must not become every
	// other check's error.
	run   context.Context
	skips skipLog
	// Per-device commands run a few at a time: a thousand hdparm processes
	// at once would hurt the machine the doctor is examining.
	cmdSlots semaphore

	devices     shared[[]*block.Device]
	platform    shared[*system.Platform]
	kernLog     shared[*kernlog.Log]
	cmdline     shared[string]
	mounts      shared[[]mount.Mount]
	mountsByDev shared[map[string][]mount.Mount]
	devMap      shared[*block.Map]
	autotrim    shared[map[string]string]
	zstatus     shared[*zfs.Status]
	ziostat     shared[[]*zfs.IostatRow]
	zfsProps    shared[zfs.Props]
	zlist       shared[[]*zfs.ListRow]
	zdedup      shared[map[string]*zfs.DDT]
	mdstat      shared[[]md.Array]
	powerModes  shared[map[string]*drive.PowerMode]
}

// maxCommands is how many per-device commands run at once.
const maxCommands = 8

func newEnv(h *machine.Host, opts Options) *Env {
	switch {
	case opts.inventoryPerDevice == 0:
		opts.inventoryPerDevice = InventoryPerDevice
	case opts.inventoryPerDevice < 0:
		opts.inventoryPerDevice = 0
	}
	return &Env{Host: h, Opts: opts, run: context.Background(), skips: newSkipLog(), cmdSlots: newSemaphore(maxCommands)}
}

// Judged returns the devices that findings are made about: every real disk,
// or the ones named with --device.
func (env *Env) Judged(ctx context.Context) []*block.Device {
	devs, _ := env.Devices(ctx)
	var out []*block.Device
	for _, d := range devs {
		if env.IsJudged(d) {
			out = append(out, d)
		}
	}
	return out
}

// IsJudged reports whether findings may be made about d.
func (env *Env) IsJudged(d *block.Device) bool {
	if len(env.Opts.Devices) > 0 {
		return block.Named(env.Opts.Devices, d.Name)
	}
	return !d.Virtual && !d.NVMePath
}
