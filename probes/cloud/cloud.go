// Package cloud reads what a cloud guest's disks need beyond their
// identity: the NVMe I/O timeout that decides whether a stalled EBS
// volume aborts I/O (nvme_core's io_timeout module parameter, in seconds,
// drivers/nvme/host/core.c; each namespace queue's io_timeout, in
// milliseconds, block/blk-sysfs.c queue_io_timeout_show).
package cloud

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strconv"

	"github.com/diskdoctor/diskdoctor/machine"
)

// Module parameter files of the NVMe I/O timeout: nvme_core since the
// core was split from the PCI driver, nvme on older kernels.
var ModuleTimeoutPaths = []string{"/sys/module/nvme_core/parameters/io_timeout", "/sys/module/nvme/parameters/io_timeout"}

// QueueTimeoutPath is a disk's request timeout in milliseconds.
func QueueTimeoutPath(disk string) string { return "/sys/block/" + disk + "/queue/io_timeout" }

// Timeout is one value read, with its file.
type Timeout struct {
	Value uint64
	File  string
}

// NVMeTimeouts is the module parameter (seconds) and each disk's queue
// timeout (milliseconds); nil where the file is absent or unreadable.
type NVMeTimeouts struct {
	Module *Timeout
	Queue  map[string]*Timeout
}

// ReadNVMeTimeouts reads the module parameter and the queue timeout of
// each disk named.
func ReadNVMeTimeouts(ctx context.Context, h *machine.Host, disks []string) (*NVMeTimeouts, error) {
	t := &NVMeTimeouts{Queue: map[string]*Timeout{}}
	var errs []error
	read := func(p string) *Timeout {
		s, err := h.ReadString(ctx, p)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, machine.ErrNotAvailable) {
				errs = append(errs, err)
			}
			return nil
		}
		v, err := ParseTimeout(s)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", p, err))
			return nil
		}
		return &Timeout{v, p}
	}
	for _, p := range ModuleTimeoutPaths {
		if t.Module = read(p); t.Module != nil {
			break
		}
	}
	for _, d := range disks {
		if v := read(QueueTimeoutPath(d)); v != nil {
			t.Queue[d] = v
		}
	}
	if err := ctx.Err(); err != nil {
		return t, machine.CtxErr(err)
	}
	return t, errors.Join(errs...)
}

// ParseTimeout reads a decimal timeout; the module parameter is an
// unsigned int, the queue's an unsigned int of milliseconds.
func ParseTimeout(s string) (uint64, error) {
	return strconv.ParseUint(s, 10, 32)
}
