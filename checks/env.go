package checks

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/diskdoctor/diskdoctor/probes"
)

// Env is what a check sees: the host, the options, and probes that are
// shared between checks, each read once per run under its own timeout.
type Env struct {
	Host *probes.Host
	Opts Options

	skips skipLog
	// Per-device commands run a few at a time: a thousand hdparm processes
	// at once would hurt the machine the doctor is examining.
	cmdSlots chan struct{}

	devices     memo[[]*probes.BlockDevice]
	platform    memo[*probes.Platform]
	kernLog     memo[*probes.KernelLog]
	mounts      memo[[]probes.Mount]
	mountsByDev memo[map[string][]probes.Mount]
	autotrim    memo[map[string]string]
	zstatus     memo[*probes.ZpoolStatus]
	ziostat     memo[[]*probes.ZIostatRow]
	zfsProps    memo[probes.ZFSProps]
	mdstat      memo[[]probes.MDArray]
}

type memo[T any] struct {
	once sync.Once
	v    T
	err  error
}

func (m *memo[T]) get(f func() (T, error)) (T, error) {
	m.once.Do(func() { m.v, m.err = f() })
	return m.v, m.err
}

func newEnv(h *probes.Host, opts Options) *Env {
	return &Env{Host: h, Opts: opts, skips: skipLog{entries: map[string]*Skipped{}}, cmdSlots: make(chan struct{}, 8)}
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
		v   T
		err error
	}
	ch := make(chan result, 1)
	go func() {
		v, err := f(ctx)
		ch <- result{v, err}
	}()
	select {
	case r := <-ch:
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		return zero, fmt.Errorf("%w after %s", probes.ErrTimeout, timeout)
	}
}

// RunCommand runs a per-device command under the probe timeout, a few at a
// time.
func RunCommand[T any](ctx context.Context, env *Env, f func(ctx context.Context) (T, error)) (T, error) {
	select {
	case env.cmdSlots <- struct{}{}:
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
	defer func() { <-env.cmdSlots }()
	return Probe(ctx, env, f)
}

// Devices is the block-device inventory.
func (env *Env) Devices(ctx context.Context) ([]*probes.BlockDevice, error) {
	return env.devices.get(func() ([]*probes.BlockDevice, error) {
		return Probe(ctx, env, func(ctx context.Context) ([]*probes.BlockDevice, error) {
			return probes.ReadBlockDevices(ctx, env.Host)
		})
	})
}

// Judged returns the devices that findings are made about: every real disk,
// or the ones named with --device.
func (env *Env) Judged(ctx context.Context) []*probes.BlockDevice {
	devs, _ := env.Devices(ctx)
	var out []*probes.BlockDevice
	for _, d := range devs {
		if env.IsJudged(d) {
			out = append(out, d)
		}
	}
	return out
}

// IsJudged reports whether findings may be made about d.
func (env *Env) IsJudged(d *probes.BlockDevice) bool {
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
func (env *Env) Platform(ctx context.Context) (*probes.Platform, error) {
	return env.platform.get(func() (*probes.Platform, error) {
		return Probe(ctx, env, func(ctx context.Context) (*probes.Platform, error) {
			return probes.ReadPlatform(ctx, env.Host)
		})
	})
}

// KernelLog is dmesg; a failure is recorded once as a skipped entry.
func (env *Env) KernelLog(ctx context.Context) (*probes.KernelLog, error) {
	return env.kernLog.get(func() (*probes.KernelLog, error) {
		l, err := Probe(ctx, env, func(ctx context.Context) (*probes.KernelLog, error) {
			return probes.ReadKernelLog(ctx, env.Host)
		})
		if err != nil {
			env.Skip("kernel-log", "", err)
		}
		return l, err
	})
}

// Mounts is /proc/self/mountinfo.
func (env *Env) Mounts(ctx context.Context) ([]probes.Mount, error) {
	return env.mounts.get(func() ([]probes.Mount, error) {
		m, err := Probe(ctx, env, func(ctx context.Context) ([]probes.Mount, error) {
			return probes.ReadMounts(ctx, env.Host)
		})
		if err != nil {
			env.Skip("mounts", "", err)
		}
		return m, err
	})
}

// MountsByDevNo is the mount table by "major:minor", for finding what is
// mounted from a device or partition.
func (env *Env) MountsByDevNo(ctx context.Context) map[string][]probes.Mount {
	m, _ := env.mountsByDev.get(func() (map[string][]probes.Mount, error) {
		mounts, _ := env.Mounts(ctx)
		by := map[string][]probes.Mount{}
		for _, m := range mounts {
			by[m.DevNo] = append(by[m.DevNo], m)
		}
		return by, nil
	})
	return m
}

// ZFSAutotrim is `zpool get autotrim` by pool.
func (env *Env) ZFSAutotrim(ctx context.Context) (map[string]string, error) {
	return env.autotrim.get(func() (map[string]string, error) {
		m, err := Probe(ctx, env, func(ctx context.Context) (map[string]string, error) {
			v, _, err := probes.ZFSAutotrim(ctx, env.Host)
			return v, err
		})
		if err != nil {
			env.Skip("zfs-autotrim", "", err)
		}
		return m, err
	})
}

// ZpoolStatus is `zpool status -P -t`; a failure (a hang included) is
// recorded once as a skipped entry.
func (env *Env) ZpoolStatus(ctx context.Context) (*probes.ZpoolStatus, error) {
	return env.zstatus.get(func() (*probes.ZpoolStatus, error) {
		st, err := Probe(ctx, env, func(ctx context.Context) (*probes.ZpoolStatus, error) {
			v, _, err := probes.ReadZpoolStatus(ctx, env.Host)
			return v, err
		})
		if err != nil {
			env.Skip("zpool-status", "", err)
		}
		return st, err
	})
}

// ZpoolIostatInterval is the sampling interval of probes.ZpoolIostatArgv:
// with -y the command answers only after it.
const ZpoolIostatInterval = time.Second

// ZpoolIostat is one interval of `zpool iostat -H -p -P -v -l -y 1 1`. It
// gets the probe timeout on top of its interval.
func (env *Env) ZpoolIostat(ctx context.Context) ([]*probes.ZIostatRow, error) {
	return env.ziostat.get(func() ([]*probes.ZIostatRow, error) {
		rows, err := ProbeWithin(ctx, env, env.Opts.ProbeTimeout+2*ZpoolIostatInterval, func(ctx context.Context) ([]*probes.ZIostatRow, error) {
			v, _, err := probes.ReadZpoolIostat(ctx, env.Host)
			return v, err
		})
		if err != nil {
			env.Skip("zpool-iostat", "", err)
		}
		return rows, err
	})
}

// ZFSProps is `zfs get` of compression, sync, logbias and recordsize.
func (env *Env) ZFSProps(ctx context.Context) (probes.ZFSProps, error) {
	return env.zfsProps.get(func() (probes.ZFSProps, error) {
		p, err := Probe(ctx, env, func(ctx context.Context) (probes.ZFSProps, error) {
			v, _, err := probes.ReadZfsGet(ctx, env.Host)
			return v, err
		})
		if err != nil {
			env.Skip("zfs-get", "", err)
		}
		return p, err
	})
}

// MDStat is /proc/mdstat. A machine without the md driver has none: that
// is not a skipped entry.
func (env *Env) MDStat(ctx context.Context) ([]probes.MDArray, error) {
	return env.mdstat.get(func() ([]probes.MDArray, error) {
		a, err := Probe(ctx, env, func(ctx context.Context) ([]probes.MDArray, error) {
			return probes.ReadMDStat(ctx, env.Host)
		})
		if err != nil && !errors.Is(err, probes.ErrNotAvailable) {
			env.Skip("mdstat", "", err)
		}
		return a, err
	})
}

// Skip records a probe that could not run, with a hint that would make it
// work. subject may be "" for host-wide probes.
func (env *Env) Skip(probe, subject string, err error) {
	reason, hint := explain(probe, err, env.Opts.ProbeTimeout)
	env.skips.add(Skipped{Check: probe, Reason: reason, Hint: hint}, subject)
}

func (env *Env) skipped() []Skipped { return env.skips.list() }

// installHints names the Debian package of each external program.
var installHints = map[string]string{
	"hdparm":   "apt-get install hdparm",
	"dmesg":    "apt-get install util-linux",
	"zpool":    "apt-get install zfsutils-linux",
	"zfs":      "apt-get install zfsutils-linux",
	"smartctl": "apt-get install smartmontools",
}

// hinted carries the hint a check knows better than the generic one.
type hinted struct {
	error
	hint string
}

func (h hinted) Unwrap() error { return h.error }

// withHint attaches a specific hint to a probe error.
func withHint(err error, hint string) error { return hinted{err, hint} }

// explain turns a probe error into a reason and a hint.
func explain(probe string, err error, timeout time.Duration) (string, string) {
	var h hinted
	if errors.As(err, &h) {
		return err.Error(), h.hint
	}
	switch {
	case errors.Is(err, probes.ErrToolMissing):
		tool := probe
		var te *probes.ToolError
		if errors.As(err, &te) {
			tool = te.Tool
		}
		hint := installHints[tool]
		if hint == "" {
			hint = "install " + tool
		}
		return err.Error(), hint
	case errors.Is(err, probes.ErrPermission):
		if probe == "kernel-log" {
			return err.Error(), "run as root, or allow it with: sysctl kernel.dmesg_restrict=0"
		}
		return err.Error(), "run diskdoctor as root"
	case errors.Is(err, probes.ErrTimeout):
		return err.Error(), fmt.Sprintf("it did not answer within %s; a command that hangs is itself a symptom (a stuck pool or device); retry with --probe-timeout %s", timeout, 4*timeout)
	case errors.Is(err, probes.ErrNotAvailable):
		return err.Error(), "the kernel does not expose this here (virtual machine, container, or a missing driver)"
	}
	return err.Error(), "see the reason; report it if it persists"
}
