package kernlog

import (
	"regexp"
	"strings"
)

// NVMeDown is what nvme_warn_reset (drivers/nvme/host/pci.c, 4.x–6.x)
// reported about one controller: "controller is down; will reset:
// CSTS=0xffffffff, PCI_STATUS=0x10". A status of all ones is a read that
// no device answered: the controller fell off the bus, and since 5.19
// the driver then asks "Does your device have a faulty power saving mode
// enabled?" and suggests nvme_core.default_ps_max_latency_us=0 and
// pcie_aspm=off (Keith Busch's troubleshooting commit: faulty APST "has
// been the culprit quite frequently").
type NVMeDown struct {
	Count   int    // controller-down reports
	AllOnes int    // of them, with CSTS=0xffffffff
	Lines   []Line // the first report, the first all-ones report and the first power-saving question
	Hint    bool   // the driver asked about a faulty power saving mode
}

var (
	nvmeDownMsg  = regexp.MustCompile(`^(?:nvme )?(nvme\d+): controller is down; will reset: CSTS=(0x[0-9a-fA-F]+)`)
	nvmeHintMsg  = regexp.MustCompile(`^(?:nvme )?(nvme\d+): Does your device have a faulty power saving mode enabled\?`)
	nvmeAllOnes  = "0xffffffff"
	maxDownLines = 3
)

// NVMeControllerDown finds nvme_warn_reset's reports, by controller (nvme0).
func (k *Log) NVMeControllerDown() map[string]*NVMeDown {
	out := map[string]*NVMeDown{}
	if k == nil {
		return out
	}
	get := func(c string) *NVMeDown {
		if out[c] == nil {
			out[c] = &NVMeDown{}
		}
		return out[c]
	}
	for _, l := range k.Lines {
		if m := nvmeDownMsg.FindStringSubmatch(l.Text); m != nil {
			d := get(m[1])
			d.Count++
			allOnes := strings.EqualFold(m[2], nvmeAllOnes)
			if allOnes {
				d.AllOnes++
			}
			if (d.Count == 1 || (allOnes && d.AllOnes == 1)) && len(d.Lines) < maxDownLines {
				d.Lines = append(d.Lines, l)
			}
			continue
		}
		if m := nvmeHintMsg.FindStringSubmatch(l.Text); m != nil {
			d := get(m[1])
			if !d.Hint && len(d.Lines) < maxDownLines {
				d.Lines = append(d.Lines, l)
			}
			d.Hint = true
		}
	}
	return out
}
