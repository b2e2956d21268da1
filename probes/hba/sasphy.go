package hba

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/diskdoctor/diskdoctor/machine"
)

// PhyCounters are the link error counters of a SAS phy, in the order
// drivers/scsi/scsi_transport_sas.c declares them (sas_phy_simple_attr).
var PhyCounters = []string{"invalid_dword_count", "running_disparity_error_count", "loss_of_dword_sync_count", "phy_reset_problem_count"}

// Phy is one SAS phy of the port a disk's end device hangs off: the HBA's
// phy for a directly attached disk, the expander's phy behind an
// expander. A nil pointer is unknown (unreadable or not a rate).
type Phy struct {
	Name  string            // phy-0:4, phy-0:0:12
	Files map[string]string // attribute → machine path read
	// Negotiated and Maximum in Gbit/s (negotiated_linkrate and the
	// programmed maximum_linkrate: "6.0 Gbit"); Raw the text.
	Negotiated, Maximum       *float64
	NegotiatedRaw, MaximumRaw string
	Counters                  map[string]uint64 // only those read
}

// Link is the SAS link of one disk.
type Link struct {
	EndDevice string // end_device-0:4, end_device-0:0:12
	// Protocols is the end device's target_port_protocols (sas_device
	// class: "sata", "ssp", "stp", "smp"), "" unknown; ProtocolsFile the
	// path read.
	Protocols, ProtocolsFile string
	Phys                     []Phy
}

// EndDeviceOf returns the machine path of the SAS port above a disk and
// the name of its end device, "" when the disk's resolved path holds none
// (…/host0/port-0:4/end_device-0:4/target0:0:4/0:0:4:0/block/sdc).
func EndDeviceOf(sysPath string) (port, end string) {
	parts := strings.Split(sysPath, "/")
	for i := len(parts) - 1; i > 0; i-- {
		if strings.HasPrefix(parts[i], "end_device-") && strings.HasPrefix(parts[i-1], "port-") {
			return strings.Join(parts[:i], "/"), parts[i]
		}
	}
	return "", ""
}

// ReadLink reads the phys of the port a disk's end device hangs off (the
// port lists its phys as links, sas_port_add_phy) through the sas_phy
// class, and the end device's protocol. Every file is optional; only a
// context error is returned, and a port that cannot be listed gives no
// phys.
func ReadLink(ctx context.Context, h *machine.Host, sysPath string) (*Link, error) {
	port, end := EndDeviceOf(sysPath)
	if port == "" {
		return nil, machine.ErrNotAvailable
	}
	l := &Link{EndDevice: end}
	p := "/sys/class/sas_device/" + end + "/target_port_protocols"
	if s, err := h.ReadString(ctx, p); err == nil {
		l.Protocols, l.ProtocolsFile = printable(s), p
	}
	links, err := h.LinksIn(ctx, port, func(n string) bool { return strings.HasPrefix(n, "phy-") })
	if err != nil && !errors.Is(err, machine.ErrNotAvailable) {
		if e := ctx.Err(); e != nil {
			return nil, machine.CtxErr(e)
		}
	}
	for i, dl := range links {
		if i >= 64 { // a wide port has at most 8 phys; a hostile tree more
			break
		}
		l.Phys = append(l.Phys, readPhy(ctx, h, dl.Name))
	}
	if err := ctx.Err(); err != nil {
		return nil, machine.CtxErr(err)
	}
	return l, nil
}

func readPhy(ctx context.Context, h *machine.Host, name string) Phy {
	ph := Phy{Name: printable(name), Files: map[string]string{}, Counters: map[string]uint64{}}
	dir := "/sys/class/sas_phy/" + name
	str := func(attr string) string {
		s, err := h.ReadString(ctx, dir+"/"+attr)
		if err != nil {
			return ""
		}
		ph.Files[attr] = dir + "/" + attr
		return printable(s)
	}
	ph.NegotiatedRaw = str("negotiated_linkrate")
	ph.Negotiated = ParseRate(ph.NegotiatedRaw)
	ph.MaximumRaw = str("maximum_linkrate")
	ph.Maximum = ParseRate(ph.MaximumRaw)
	for _, c := range PhyCounters {
		if s := str(c); s != "" {
			if v, err := strconv.ParseUint(s, 10, 32); err == nil {
				ph.Counters[c] = v
			}
		}
	}
	return ph
}

// ParseRate reads a link rate as the SAS transport class prints it
// (sas_linkspeed_names: "1.5 Gbit", "3.0 Gbit", "6.0 Gbit", "12.0 Gbit",
// "22.5 Gbit"); "Unknown", "Phy disabled", "Link Rate failed" and
// "Spin-up hold" are no rate (nil).
func ParseRate(s string) *float64 {
	v, ok := strings.CutSuffix(strings.TrimSpace(s), " Gbit")
	if !ok {
		return nil
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || !(f > 0 && f <= 1000) {
		return nil
	}
	return &f
}

// SATAMaxGbps is the fastest a SATA device links at (SATA 3.x, 6 Gbit/s):
// a SATA disk behind a 12 Gbit/s HBA or expander negotiates 6.0 Gbit, which
// is its maximum, not a slow link.
const SATAMaxGbps = 6.0
