package block

import (
	"context"
	"fmt"
	"strconv"

	"github.com/diskdoctor/diskdoctor/machine"
)

// TimeoutPath is the SCSI layer's command timer of a disk: the seconds the
// kernel waits for one command before it aborts it and starts error
// handling (drivers/scsi/scsi_sysfs.c, the sdev "timeout" attribute; sd's
// default SD_TIMEOUT is 30 s, drivers/scsi/sd.h). libata disks are SCSI
// devices and have it too; NVMe and virtio disks do not.
func TimeoutPath(dev string) string { return "/sys/block/" + dev + "/device/timeout" }

// ReadTimeout reads TimeoutPath: the timer in seconds and the raw text. A
// disk without the file (not a SCSI device) is machine.ErrNotAvailable.
func ReadTimeout(ctx context.Context, h *machine.Host, dev string) (int, string, error) {
	if !ValidName(dev) {
		return 0, "", fmt.Errorf("block: %q is not a device name", dev)
	}
	raw, err := h.ReadString(ctx, TimeoutPath(dev))
	if err != nil {
		return 0, "", err
	}
	v, err := strconv.Atoi(raw)
	if err != nil || v <= 0 {
		return 0, raw, fmt.Errorf("%s: %q: %w", TimeoutPath(dev), raw, machine.ErrParse)
	}
	return v, raw, nil
}
