package zfs

import (
	"context"
	"slices"

	"github.com/diskdoctor/diskdoctor/machine"
)

// PeriodicTrimProperty is the user property Debian's and Ubuntu's
// zfsutils-linux reads to decide whether its monthly cron job trims a
// pool: enable, disable, or auto (the default, also when unset: "-"). The
// job's script reads it from the pool's root dataset with `zfs get`, not
// from the pool (the comment in get_property: user properties were not
// available on pools), so it is set with `zfs set … POOL`
// (salsa.debian.org/zfsonlinux-team/zfs, mirrored at github.com/pop-os/zfs-linux:
// debian/tree/zfsutils-linux/usr/lib/zfs-linux/trim).
const PeriodicTrimProperty = "org.debian:periodic-trim"

// periodicTrimArgv reads the property of every pool's root dataset: with
// no dataset named `zfs get` walks every dataset, and -d 0 keeps it at
// the roots (zfs_callback in cmd/zfs/zfs_iter.c recurses only below the
// depth limit).
var periodicTrimArgv = []string{"zfs", "get", "-H", "-d", "0", "-o", "name,value", PeriodicTrimProperty}

// PeriodicTrimArgv is `zfs get -H -d 0 -o name,value org.debian:periodic-trim`
// as the doctor runs it (a copy).
func PeriodicTrimArgv() []string { return slices.Clone(periodicTrimArgv) }

// PeriodicTrim runs PeriodicTrimArgv and returns the value per pool ("-"
// where the property is not set).
func PeriodicTrim(ctx context.Context, h *machine.Host) (map[string]string, machine.CmdResult, error) {
	res, err := h.Run(ctx, periodicTrimArgv...)
	if err != nil {
		return nil, res, err
	}
	if res.Exit != 0 {
		return nil, res, machine.ExitError(res)
	}
	return ParseZpoolGet(res.Stdout), res, nil
}
