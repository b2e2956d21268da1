package nvmens

import (
	"encoding/json"
	"fmt"
	"math/bits"
	"regexp"
	"strconv"

	"github.com/diskdoctor/diskdoctor/machine"
)

// smartctlNS is the part of smartctl's JSON (smartmontools 7.5 and later,
// nvmeprint.cpp print_drive_capabilities) that lists a namespace's LBA
// formats: every format 0..NLBAF in order, the one FLBAS names marked
// "formatted".
type smartctlNS struct {
	NVMeNamespaces []struct {
		ID         *int `json:"id"`
		LBAFormats []struct {
			Formatted           *bool `json:"formatted"`
			DataBytes           *int  `json:"data_bytes"`
			MetadataBytes       *int  `json:"metadata_bytes"`
			RelativePerformance *int  `json:"relative_performance"`
		} `json:"lba_formats"`
	} `json:"nvme_namespaces"`
}

var nsidOf = regexp.MustCompile(`^nvme\d+(?:c\d+)?n(\d+)$`)

// NSID is the namespace id in a namespace's kernel name (nvme0n1 → 1,
// nvme0c0n2 → 2); 0 when the name has none.
func NSID(name string) int {
	m := nsidOf.FindStringSubmatch(name)
	if m == nil {
		return 0
	}
	n, err := strconv.Atoi(m[1])
	if err != nil {
		return 0
	}
	return n
}

// ParseSmartctl reads namespace nsid's LBA formats from `smartctl -x -j`
// output. Older smartctl prints no lba_formats: ErrNotAvailable, the
// formats are unknown.
func ParseSmartctl(b []byte, nsid int) (*Namespace, error) {
	var v smartctlNS
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, fmt.Errorf("%w: smartctl JSON: %v", machine.ErrParse, err)
	}
	for _, j := range v.NVMeNamespaces {
		if j.ID == nil || *j.ID != nsid || len(j.LBAFormats) == 0 {
			continue
		}
		ns := &Namespace{InUse: LBAF{Index: -1}}
		for i, l := range j.LBAFormats {
			if i >= 64 {
				break
			}
			if l.DataBytes == nil || l.MetadataBytes == nil || l.RelativePerformance == nil {
				continue
			}
			db, ms, rp := *l.DataBytes, *l.MetadataBytes, *l.RelativePerformance
			if db < 512 || db > 1<<30 || db&(db-1) != 0 || ms < 0 || rp < 0 || rp > 3 {
				continue // an unused entry (ds 0 prints as 1 byte) or out of range
			}
			f := LBAF{Index: i, MS: ms, DS: bits.TrailingZeros(uint(db)), RP: rp}
			ns.Formats = append(ns.Formats, f)
			if l.Formatted != nil && *l.Formatted && ns.InUse.Index < 0 {
				ns.InUse = f
			}
		}
		if ns.InUse.Index < 0 {
			return nil, fmt.Errorf("%w: smartctl JSON: namespace %d marks no supported format as formatted", machine.ErrParse, nsid)
		}
		return ns, nil
	}
	return nil, fmt.Errorf("%w: smartctl JSON: no lba_formats for namespace %d (smartctl before 7.5)", machine.ErrNotAvailable, nsid)
}
