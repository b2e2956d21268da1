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
	mounts      shared[[]mount.Mount]
	mountsByDev shared[map[string][]mount.Mount]
	autotrim    shared[map[string]string]
	zstatus     shared[*zfs.Status]
	ziostat     shared[[]*zfs.IostatRow]
	zfsProps    shared[zfs.Props]
	mdstat      shared[[]md.Array]
}

// maxCommands is how many per-device commands run at once.
const maxCommands = 8

func newEnv(h *machine.Host, opts Options) *Env {
	return &Env{Host: h, Opts: opts, run: context.Background(), skips: newSkipLog(), cmdSlots: newSemaphore(maxCommands)}
}

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

// Probe runs f under the probe timeout. A probe that ignores its context
// still cannot hold the check past the deadline.
func Probe[T any](ctx context.Context, env *Env, f func(ctx context.Context) (T, error)) (T, error) {
	return ProbeWithin(ctx, env, env.Opts.ProbeTimeout, f)
}

// ProbeWithin is Probe with its own deadline, for a probe that takes a
// known time by design (a sampling interval) on top of the probe timeout.
func ProbeWithin[T any](ctx context.Context, env *Env, timeout time.Duration, f func(ctx context.Context) (T, error)) (T, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	type result struct {
		v      T
		err    error
		panicV any
	}
	ch := make(chan result, 1)
	go func() {
		var r result
		defer func() {
			r.panicV = recover()
			ch <- r
		}()
		r.v, r.err = f(ctx)
	}()
	select {
	case r := <-ch:
		if r.panicV != nil {
			panic(r.panicV) // in the check's goroutine, where Run recovers it
		}
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return zero, fmt.Errorf("%w after %s", machine.ErrTimeout, timeout)
		}
		return zero, ctx.Err()
	}
}

// RunCommand runs a per-device command under the probe timeout, a few at a
// time.
func RunCommand[T any](ctx context.Context, env *Env, f func(ctx context.Context) (T, error)) (T, error) {
	if err := env.cmdSlots.acquire(ctx); err != nil {
		var zero T
		return zero, err
	}
	defer env.cmdSlots.release()
	return Probe(ctx, env, f)
}

// Devices is the block-device inventory.
func (env *Env) Devices(ctx context.Context) ([]*block.Device, error) {
	return probeOnce(ctx, env, &env.devices, "", 0, false, block.Read)
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
		for _, n := range env.Opts.Devices {
			if n == d.Name || n == "/dev/"+d.Name {
				return true
			}
		}
		return false
	}
	return !d.Virtual && !d.NVMePath
}

// Platform is DMI, kernel and distribution.
func (env *Env) Platform(ctx context.Context) (*system.Platform, error) {
	return probeOnce(ctx, env, &env.platform, "", 0, false, system.ReadPlatform)
}

// KernelLog is dmesg; a failure is recorded once as a skipped entry.
func (env *Env) KernelLog(ctx context.Context) (*kernlog.Log, error) {
	return probeOnce(ctx, env, &env.kernLog, "kernel-log", 0, false, kernlog.Read)
}

// Mounts is /proc/self/mountinfo.
func (env *Env) Mounts(ctx context.Context) ([]mount.Mount, error) {
	return probeOnce(ctx, env, &env.mounts, "mounts", 0, false, mount.Read)
}

// MountsByDevNo is the mount table by "major:minor", for finding what is
// mounted from a device or partition.
func (env *Env) MountsByDevNo(ctx context.Context) map[string][]mount.Mount {
	m, _ := env.mountsByDev.get(ctx, env.run, func(run context.Context) (map[string][]mount.Mount, error) {
		mounts, _ := env.Mounts(run)
		by := map[string][]mount.Mount{}
		for _, m := range mounts {
			by[m.DevNo] = append(by[m.DevNo], m)
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
	return probeOnce(ctx, env, &env.ziostat, "zpool-iostat", env.Opts.ProbeTimeout+2*ZpoolIostatInterval, false, valueOnly(zfs.ReadIostat))
}

// ZFSProps is `zfs get` of compression, sync, logbias and recordsize.
func (env *Env) ZFSProps(ctx context.Context) (zfs.Props, error) {
	return probeOnce(ctx, env, &env.zfsProps, "zfs-get", 0, false, valueOnly(zfs.ReadGet))
}

// MDStat is /proc/mdstat. A machine without the md driver has none: that
// is not a skipped entry.
func (env *Env) MDStat(ctx context.Context) ([]md.Array, error) {
	return probeOnce(ctx, env, &env.mdstat, "mdstat", 0, true, md.Read)
}
