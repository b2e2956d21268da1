// Package nvmens reads an NVMe namespace's LBA formats from nvme-cli's
// Identify Namespace (`nvme id-ns -o json /dev/nvmeXnY`): FLBAS (the
// format in use) and each supported format's metadata size (ms), data
// size (ds, a power of two: 9 is 512 bytes, 12 is 4096) and Relative
// Performance (rp: 0 best, 1 better, 2 good, 3 degraded), NVM Express NVM
// Command Set Specification, Identify Namespace (LBA Format Data
// Structure).
package nvmens

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/diskdoctor/diskdoctor/machine"
)

// LBAF is one LBA format.
type LBAF struct {
	Index, MS, DS, RP int
}

// Bytes is the format's logical block size.
func (f LBAF) Bytes() int { return 1 << f.DS }

// Namespace is what Identify Namespace says of the formats.
type Namespace struct {
	InUse   LBAF
	Formats []LBAF // the supported ones (0..nlbaf), ds 0 (unused) left out
}

type idNS struct {
	FLBAS *int `json:"flbas"`
	NLBAF *int `json:"nlbaf"`
	LBAFs []struct {
		MS *int `json:"ms"`
		DS *int `json:"ds"`
		RP *int `json:"rp"`
	} `json:"lbafs"`
}

// Parse reads nvme-cli's JSON. The format in use is FLBAS bits 3:0, with
// bits 6:5 as its high bits when there are more than 16 formats.
func Parse(b []byte) (*Namespace, error) {
	var v idNS
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, fmt.Errorf("%w: nvme id-ns: %v", machine.ErrParse, err)
	}
	if v.FLBAS == nil || len(v.LBAFs) == 0 {
		return nil, fmt.Errorf("%w: nvme id-ns: no flbas or lbafs", machine.ErrParse)
	}
	n := len(v.LBAFs)
	if v.NLBAF != nil && *v.NLBAF >= 0 && *v.NLBAF+1 < n {
		n = *v.NLBAF + 1
	}
	if n > 64 {
		n = 64
	}
	idx := *v.FLBAS&0xf | (*v.FLBAS>>5&0x3)<<4
	ns := &Namespace{InUse: LBAF{Index: -1}}
	for i := 0; i < n; i++ {
		l := v.LBAFs[i]
		if l.MS == nil || l.DS == nil || l.RP == nil || *l.DS < 9 || *l.DS > 30 || *l.RP < 0 || *l.RP > 3 || *l.MS < 0 {
			continue // unused entry (ds 0) or out of range
		}
		f := LBAF{Index: i, MS: *l.MS, DS: *l.DS, RP: *l.RP}
		ns.Formats = append(ns.Formats, f)
		if i == idx {
			ns.InUse = f
		}
	}
	if ns.InUse.Index < 0 {
		return nil, fmt.Errorf("%w: nvme id-ns: flbas %d names no supported format", machine.ErrParse, *v.FLBAS)
	}
	return ns, nil
}

// Best is the format without metadata with the best Relative Performance
// (the lowest rp; on a tie the one in use, else the larger block), and
// whether it is better than the one in use.
func (n *Namespace) Best() (LBAF, bool) {
	best := n.InUse
	for _, f := range n.Formats {
		if f.MS != 0 {
			continue
		}
		if f.RP < best.RP || f.RP == best.RP && best.Index != n.InUse.Index && f.DS > best.DS {
			best = f
		}
	}
	return best, n.InUse.MS == 0 && best.RP < n.InUse.RP
}

// Read runs nvme id-ns on a namespace (nvme0n1) and parses it.
func Read(ctx context.Context, h *machine.Host, ns string) (*Namespace, machine.CmdResult, error) {
	res, err := h.Run(ctx, "nvme", "id-ns", "-o", "json", "/dev/"+ns)
	if err != nil {
		return nil, res, err
	}
	if res.Exit != 0 {
		return nil, res, fmt.Errorf("%s: exit %d: %w", res, res.Exit, machine.ErrParse)
	}
	n, err := Parse(res.Stdout)
	if err != nil {
		return nil, res, fmt.Errorf("%s: %w", res, err)
	}
	return n, res, nil
}
