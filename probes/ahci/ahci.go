// Package ahci reads what the AHCI driver logged about each controller:
// its mode (libahci.c ahci_print_info: "AHCI 0001.0301 32 slots 4 ports 6
// Gbps 0xf impl SATA mode"; RAID when the firmware runs the Intel
// controller as RST RAID) and the NVMe devices the firmware hid behind it
// (ahci.c ahci_remap_check, 5.3 and later: "Found 1 remapped NVMe
// devices." and "Switch your BIOS from RAID to AHCI mode to use them.").
package ahci

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/diskdoctor/diskdoctor/probes/kernlog"
)

// Controller is what the log says about one AHCI controller, by PCI
// address.
type Controller struct {
	Address  string // 0000:00:17.0
	Mode     string // SATA, RAID, IDE, unknown; "" when not logged
	ModeLine *kernlog.Line
	// Remapped: NVMe devices behind the controller that Linux cannot use
	// (-1 when not logged); Lines the remap warning and its advice.
	Remapped int
	Lines    []kernlog.Line
}

var (
	modeMsg   = regexp.MustCompile(`^ahci (\S+): AHCI [0-9a-f.]+ \d+ slots \d+ ports [\d.?]+ Gbps 0x[0-9a-f]+ impl (\w+) mode`)
	remapMsg  = regexp.MustCompile(`^ahci (\S+): Found (\d+) remapped NVMe devices`)
	switchMsg = regexp.MustCompile(`^ahci (\S+): Switch your BIOS from RAID to AHCI mode`)
)

// Scan reads every AHCI controller's mode and remap lines, in the order
// the log first names them; the last report of each wins (a reload).
func Scan(k *kernlog.Log) []*Controller {
	if k == nil {
		return nil
	}
	var out []*Controller
	by := map[string]*Controller{}
	get := func(a string) *Controller {
		if c := by[a]; c != nil {
			return c
		}
		c := &Controller{Address: a, Remapped: -1}
		by[a] = c
		out = append(out, c)
		return c
	}
	for i := range k.Lines {
		l := k.Lines[i]
		if !strings.HasPrefix(l.Text, "ahci ") {
			continue
		}
		if m := modeMsg.FindStringSubmatch(l.Text); m != nil {
			c := get(m[1])
			c.Mode, c.ModeLine = m[2], &k.Lines[i]
		} else if m := remapMsg.FindStringSubmatch(l.Text); m != nil {
			c := get(m[1])
			if n, err := strconv.Atoi(m[2]); err == nil && n >= 0 && n < 1000 {
				c.Remapped = n
			}
			c.Lines = append(c.Lines[:0], l)
		} else if m := switchMsg.FindStringSubmatch(l.Text); m != nil {
			c := get(m[1])
			if len(c.Lines) < 2 {
				c.Lines = append(c.Lines, l)
			}
		}
	}
	return out
}
