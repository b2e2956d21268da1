// Package nvmehmb reads what the NVMe PCI driver logged about each
// controller's Host Memory Buffer (drivers/nvme/host/pci.c,
// nvme_setup_host_mem): a DRAM-less SSD asks the host for part of its RAM
// to hold its mapping tables (NVMe base specification, Host Memory
// Buffer), and the driver says "allocated N MiB host memory buffer.",
// "failed to allocate host memory buffer." or "min host memory (N MiB)
// above limit (M MiB)." (nvme.max_host_mem_size_mb). A drive with DRAM
// asks for none, and nothing is logged.
package nvmehmb

import (
	"regexp"
	"strconv"

	"github.com/diskdoctor/diskdoctor/probes/kernlog"
)

// The states a controller's buffer was last logged in.
const (
	Allocated = "allocated"
	Failed    = "failed"
	OverLimit = "over-limit"
)

// Event is the last HMB line of a controller.
type Event struct {
	State string
	// MiB is the size allocated (Allocated), or the drive's minimum
	// (OverLimit); LimitMiB the driver's limit (OverLimit).
	MiB, LimitMiB int
	Line          kernlog.Line
}

var (
	allocMsg = regexp.MustCompile(`^nvme (nvme\d+): allocated (\d+) MiB host memory buffer`)
	failMsg  = regexp.MustCompile(`^nvme (nvme\d+): failed to allocate host memory buffer`)
	limitMsg = regexp.MustCompile(`^nvme (nvme\d+): min host memory \((\d+) MiB\) above limit \((\d+) MiB\)`)
)

// Scan returns each controller's last HMB line by controller name
// (nvme1): a resume logs it again, and the last one is the state now.
func Scan(k *kernlog.Log) map[string]Event {
	out := map[string]Event{}
	if k == nil {
		return out
	}
	atoi := func(s string) int {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 || n > 1<<20 {
			return 0
		}
		return n
	}
	for _, l := range k.Lines {
		if m := failMsg.FindStringSubmatch(l.Text); m != nil {
			out[m[1]] = Event{State: Failed, Line: l}
		} else if m := allocMsg.FindStringSubmatch(l.Text); m != nil {
			out[m[1]] = Event{State: Allocated, MiB: atoi(m[2]), Line: l}
		} else if m := limitMsg.FindStringSubmatch(l.Text); m != nil {
			out[m[1]] = Event{State: OverLimit, MiB: atoi(m[2]), LimitMiB: atoi(m[3]), Line: l}
		}
	}
	return out
}
