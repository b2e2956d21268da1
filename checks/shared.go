package checks

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/diskdoctor/diskdoctor/machine"
	"github.com/diskdoctor/diskdoctor/probes/block"
	"github.com/diskdoctor/diskdoctor/probes/kernlog"
	"github.com/diskdoctor/diskdoctor/probes/md"
	"github.com/diskdoctor/diskdoctor/probes/mount"
	"github.com/diskdoctor/diskdoctor/probes/system"
	"github.com/diskdoctor/diskdoctor/probes/zfs"
)

// shared is a value computed once per run and read by every check. The
// computation runs under the run's context; each caller waits under its
// own, so a caller that gives up returns its own error and leaves the
// value to the others.
type shared[T any] struct {
	once   sync.Once
	done   chan struct{}
	v      T
	err    error
	panicV any // a panic of the computation, raised again in each caller
}

func (s *shared[T]) get(ctx, run context.Context, compute func(run context.Context) (T, error)) (T, error) {
	s.once.Do(func() {
		s.done = make(chan struct{})
		go func() {
			defer close(s.done)
			defer func() { s.panicV = recover() }()
			s.v, s.err = compute(run)
		}()
	})
	select {
	case <-s.done:
		if s.panicV != nil {
			panic(s.panicV) // in the caller's goroutine, where Run recovers it
		}
		return s.v, s.err
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}

// reader is a probe that reads one thing from the host.
type reader[T any] func(ctx context.Context, h *machine.Host) (T, error)

// valueOnly drops the raw output a command probe also returns.
func valueOnly[T, R any](f func(ctx context.Context, h *machine.Host) (T, R, error)) reader[T] {
	return func(ctx context.Context, h *machine.Host) (T, error) {
		v, _, err := f(ctx, h)
		return v, err
	}
}

// probeOnce reads a shared probe once per run under timeout (0: the probe
// timeout). A failure is one skipped entry named skipAs, unless skipAs is
// "" or absentOK and the probe found nothing to read.
func probeOnce[T any](ctx context.Context, env *Env, s *shared[T], skipAs string, timeout time.Duration, absentOK bool, read reader[T]) (T, error) {
	if timeout == 0 {
		timeout = env.Opts.ProbeTimeout
	}
	return s.get(ctx, env.run, func(run context.Context) (T, error) {
		v, err := ProbeWithin(run, env, timeout, func(ctx context.Context) (T, error) { return read(ctx, env.Host) })
		if err != nil && skipAs != "" && !(absentOK && errors.Is(err, machine.ErrNotAvailable)) {
			env.Skip(skipAs, "", err)
		}
		return v, err
	})
}

// InventoryPerDevice is the inventory's allowance per block device on top
// of the probe timeout. The inventory reads a dozen sysfs files and a udev
// record per device: a machine with tens of thousands of devices (LUNs
// behind multipath, dm, loop) needs longer than one probe is given, and
// the deadline grows with what there is to read rather than failing the
// run.
const InventoryPerDevice = 2 * time.Millisecond

// Devices is the block-device inventory, under the probe timeout plus an
// allowance per device /sys/block lists.
func (env *Env) Devices(ctx context.Context) ([]*block.Device, error) {
	return env.devices.get(ctx, env.run, func(run context.Context) ([]*block.Device, error) {
		timeout := env.Opts.ProbeTimeout
		n, err := ProbeWithin(run, env, env.Opts.ProbeTimeout, func(ctx context.Context) (int, error) {
			ents, err := env.Host.ReadDir(ctx, "/sys/block")
			return len(ents), err
		})
		if err != nil {
			return nil, inventoryErr(err, n, timeout)
		}
		timeout += time.Duration(n) * env.Opts.inventoryPerDevice
		devs, err := ProbeWithin(run, env, timeout, func(ctx context.Context) ([]*block.Device, error) {
			return block.ReadPathsNamed(ctx, env.Host, env.Opts.Devices)
		})
		return devs, inventoryErr(err, n, timeout)
	})
}

// inventoryErr says, of an inventory that timed out, how many devices it
// had to read and which option gives it longer: the run ends on it.
func inventoryErr(err error, devices int, timeout time.Duration) error {
	if !errors.Is(err, machine.ErrTimeout) {
		return err
	}
	if devices == 0 { // /sys/block itself did not answer
		return fmt.Errorf("%w listing /sys/block (retry with --probe-timeout %s)", err, 4*timeout)
	}
	return fmt.Errorf("%w (%d entries in /sys/block; retry with --probe-timeout %s: the inventory gets the probe timeout plus %s per device)", err, devices, 4*timeout, InventoryPerDevice)
}

// Platform is DMI, kernel and distribution.
func (env *Env) Platform(ctx context.Context) (*system.Platform, error) {
	return probeOnce(ctx, env, &env.platform, "", 0, false, system.ReadPlatform)
}

// KernelLog is dmesg; a failure is recorded once as a skipped entry.
func (env *Env) KernelLog(ctx context.Context) (*kernlog.Log, error) {
	return probeOnce(ctx, env, &env.kernLog, "kernel-log", 0, false, kernlog.Read)
}

// CmdLine is /proc/cmdline, read once for the checks that look for a
// kernel parameter (libata.force, nvme_core's latency limit, pcie_aspm).
func (env *Env) CmdLine(ctx context.Context) (string, error) {
	return probeOnce(ctx, env, &env.cmdline, "", 0, false, func(ctx context.Context, h *machine.Host) (string, error) {
		return h.ReadString(ctx, "/proc/cmdline")
	})
}

// Mounts is /proc/self/mountinfo.
func (env *Env) Mounts(ctx context.Context) ([]mount.Mount, error) {
	return probeOnce(ctx, env, &env.mounts, "mounts", 0, false, mount.Read)
}

// DevMap is the inventory's names and device numbers (block.NewMap), made
// once for the checks that look devices up by either.
func (env *Env) DevMap(ctx context.Context) *block.Map {
	m, _ := env.devMap.get(ctx, env.run, func(run context.Context) (*block.Map, error) {
		devs, _ := env.Devices(run)
		return block.NewMap(devs), nil
	})
	if m == nil {
		return block.NewMap(nil) // the run ended first: no device is known
	}
	return m
}

// MountsByDevNo is the mount table by "major:minor", for finding what is
// mounted from a device or partition. A btrfs mount, whose major:minor is
// anonymous, is filed under the device its source names (mountDevice).
func (env *Env) MountsByDevNo(ctx context.Context) map[string][]mount.Mount {
	m, _ := env.mountsByDev.get(ctx, env.run, func(run context.Context) (map[string][]mount.Mount, error) {
		mounts, _ := env.Mounts(run)
		bm := env.DevMap(run)
		by := map[string][]mount.Mount{}
		for _, m := range mounts {
			dn := m.DevNo
			if bm.Name(dn) == "" {
				if dev := mountDevice(m, bm); dev != "" {
					dn = bm.DevNoOf(dev)
				}
			}
			by[dn] = append(by[dn], m)
		}
		return by, nil
	})
	return m
}

// ZFSAutotrim is `zpool get autotrim` by pool.
func (env *Env) ZFSAutotrim(ctx context.Context) (map[string]string, error) {
	return probeOnce(ctx, env, &env.autotrim, "zfs-autotrim", 0, false, valueOnly(zfs.Autotrim))
}

// ZpoolStatus is `zpool status -P -t`; a failure (a hang included) is
// recorded once as a skipped entry.
func (env *Env) ZpoolStatus(ctx context.Context) (*zfs.Status, error) {
	return probeOnce(ctx, env, &env.zstatus, "zpool-status", 0, false, valueOnly(zfs.ReadStatus))
}

// ZpoolIostatInterval is the sampling interval of probes.ZpoolIostatArgv:
// with -y the command answers only after it.
const ZpoolIostatInterval = time.Second

// ZpoolIostat is one interval of `zpool iostat -H -p -P -v -l -y 1 1`. It
// gets the probe timeout on top of its interval.
func (env *Env) ZpoolIostat(ctx context.Context) ([]*zfs.IostatRow, error) {
	return probeOnce(ctx, env, &env.ziostat, "zpool-iostat", env.Opts.ProbeTimeout+ZpoolIostatInterval, false, valueOnly(zfs.ReadIostat))
}

// ZFSProps is `zfs get` of compression, sync, logbias and recordsize.
func (env *Env) ZFSProps(ctx context.Context) (zfs.Props, error) {
	return probeOnce(ctx, env, &env.zfsProps, "zfs-get", 0, false, valueOnly(zfs.ReadGet))
}

// ZpoolList is `zpool list -Hp -o name,size,allocated,free,fragmentation,capacity,health`.
func (env *Env) ZpoolList(ctx context.Context) ([]*zfs.ListRow, error) {
	return probeOnce(ctx, env, &env.zlist, "zpool-list", 0, false, valueOnly(zfs.ReadList))
}

// ZpoolDedup is `zpool status -D`: each pool's dedup table summary.
func (env *Env) ZpoolDedup(ctx context.Context) (map[string]*zfs.DDT, error) {
	return probeOnce(ctx, env, &env.zdedup, "zpool-status-dedup", 0, false, valueOnly(zfs.ReadDedup))
}

// MDStat is /proc/mdstat. A machine without the md driver has none: that
// is not a skipped entry.
func (env *Env) MDStat(ctx context.Context) ([]md.Array, error) {
	return probeOnce(ctx, env, &env.mdstat, "mdstat", 0, true, md.Read)
}
