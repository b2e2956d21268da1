package lvm

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/diskdoctor/diskdoctor/internal/parse"
	"github.com/diskdoctor/diskdoctor/machine"
)

// lvsArgv asks for every logical volume in exact values: --units b with
// --nosuffix prints sizes as plain byte counts, --reportformat json one
// object per LV under {"report":[{"lv":[…]}]} (lvs(8), lvmreport(7)).
// data_percent and metadata_percent are "" for an LV that has none (every
// LV but thin pools, thin volumes, snapshots and caches) and for an
// inactive pool; pool_lv names a thin volume's pool. lv_health_status is
// lvm's word for lv_attr's ninth character ("partial", "refresh needed",
// "mismatches exist", …; "" when healthy), segtype the LV's segment type
// (raid1, thin-pool, cache, …), cache_mode and cache_dirty_blocks a cached
// LV's (lvmcache(7)).
var lvsArgv = []string{"lvs", "--reportformat", "json", "--units", "b", "--nosuffix", "-o", "vg_name,lv_name,lv_attr,lv_size,data_percent,metadata_percent,pool_lv,lv_health_status,segtype,cache_mode,cache_dirty_blocks"}

// Argv is the lvs command the doctor runs (a copy).
func Argv() []string { return slices.Clone(lvsArgv) }

// Bounds on what a report may hold before it is refused: a recording is not
// trusted, and a real machine's report is far smaller (a few hundred bytes
// per LV).
const (
	MaxReportBytes = 8 << 20
	MaxLVs         = 20000
)

// LV is one logical volume of the report. A percentage or size that was
// "" or not a number is absent: its Has flag is false (unknown, not zero).
type LV struct {
	VG, Name, Attr, Pool     string
	Size                     uint64 // bytes
	HasSize                  bool
	DataPercent, MetaPercent float64
	HasData, HasMeta         bool
	// HealthStatus, SegType and CacheMode are lvs' words; Has* is false
	// when the report lacks the field (a recording of the argv before
	// they were asked for): unknown, not healthy.
	HealthStatus, SegType, CacheMode string
	HasHealth, HasSegType, HasCache  bool
	CacheDirtyBlocks                 uint64
	HasDirty                         bool
	// Raw is the LV's JSON object as lvs printed it (compacted), for
	// evidence.
	Raw string
}

// ThinPool: lv_attr's first character, the volume type, is 't' for a thin
// pool (lvs(8), "The lv_attr bits are", 1).
func (lv *LV) ThinPool() bool { return strings.HasPrefix(lv.Attr, "t") }

// Health is lv_attr's ninth character, the volume health (lvs(8), 9): for
// a thin pool (F)ailed, out of (D)ata space, (M)etadata read only; for
// every LV (p)artial and (X) unknown; '-' when none applies. "" when the
// attribute is too short to hold it.
func (lv *LV) Health() string {
	if len(lv.Attr) < 9 {
		return ""
	}
	return lv.Attr[8:9]
}

// Active: lv_attr's fifth character, the state, is 'a' for an active LV
// (lvs(8), 5). An inactive pool has no percentages to report.
func (lv *LV) Active() bool { return len(lv.Attr) >= 5 && lv.Attr[4] == 'a' }

// FullName is "vg/lv", the name lvm commands take.
func (lv *LV) FullName() string { return lv.VG + "/" + lv.Name }

type report struct {
	Report []struct {
		LV []json.RawMessage `json:"lv"`
	} `json:"report"`
}

// ParseReport reads Argv's output. Invalid JSON, a report without its
// "report" list, or one over the bounds is ErrParse; an LV whose VG or LV
// name lvm would not accept is left out. An empty "lv" list is zero LVs
// (lvs prints that on a machine with no volume groups).
func ParseReport(b []byte) ([]*LV, error) {
	if len(b) > MaxReportBytes {
		return nil, fmt.Errorf("%w: lvs report of %d bytes (at most %d read)", machine.ErrParse, len(b), MaxReportBytes)
	}
	var r report
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%w: lvs report: %v", machine.ErrParse, err)
	}
	if r.Report == nil {
		return nil, fmt.Errorf("%w: lvs output has no \"report\" list", machine.ErrParse)
	}
	var out []*LV
	for _, sec := range r.Report {
		for _, raw := range sec.LV {
			if len(out) >= MaxLVs {
				return nil, fmt.Errorf("%w: lvs report of more than %d LVs", machine.ErrParse, MaxLVs)
			}
			if lv, ok := parseLV(raw); ok {
				out = append(out, lv)
			}
		}
	}
	return out, nil
}

func parseLV(raw json.RawMessage) (*LV, bool) {
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return nil, false
	}
	lv := &LV{VG: field(m, "vg_name"), Name: field(m, "lv_name"), Attr: field(m, "lv_attr"), Pool: field(m, "pool_lv")}
	if !validName(lv.VG) || !validName(lv.Name) || (lv.Pool != "" && !validName(lv.Pool)) || !validAttr(lv.Attr) {
		return nil, false
	}
	var c bytes.Buffer
	if json.Compact(&c, raw) == nil {
		lv.Raw = c.String()
	}
	if n, err := strconv.ParseUint(field(m, "lv_size"), 10, 64); err == nil {
		lv.Size, lv.HasSize = n, true
	}
	lv.DataPercent, lv.HasData = percent(field(m, "data_percent"))
	lv.MetaPercent, lv.HasMeta = percent(field(m, "metadata_percent"))
	lv.HealthStatus, lv.HasHealth = word(m, "lv_health_status")
	lv.SegType, lv.HasSegType = word(m, "segtype")
	lv.CacheMode, lv.HasCache = word(m, "cache_mode")
	if n, err := strconv.ParseUint(field(m, "cache_dirty_blocks"), 10, 64); err == nil {
		lv.CacheDirtyBlocks, lv.HasDirty = n, true
	}
	return lv, true
}

// field is a report value as text: lvs' json format prints every value as
// a string; its json_std format (lvm2 2.03.17) prints numbers as numbers.
func field(m map[string]any, k string) string {
	switch v := m[k].(type) {
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return ""
}

// word is a short report value of lowercase words ("refresh needed",
// "raid1", "writeback"), and whether the report has the field at all;
// anything longer or with other characters is dropped as not lvm's.
func word(m map[string]any, k string) (string, bool) {
	if _, ok := m[k]; !ok {
		return "", false
	}
	s := field(m, k)
	if len(s) > 32 {
		return "", false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == ' ' || c == '-' || c == '_') {
			return "", false
		}
	}
	return s, true
}

// percent reads "78.89": a finite number from 0 to 100; "" (no such
// value, or an inactive pool) and anything else is unknown.
func percent(s string) (float64, bool) {
	if s == "" {
		return 0, false
	}
	v, err := parse.Finite(s)
	if err != nil || v < 0 || v > 100 {
		return 0, false
	}
	return v, true
}

// validName: the characters lvm accepts in VG and LV names, a-z A-Z 0-9
// + _ . - (lvm(8), VALID NAMES), at most 127 of them (NAME_LEN 128 with
// its terminator, lib/metadata/metadata-exported.h); the brackets lvs -a
// puts around hidden LVs ("[data_tmeta]") are accepted, since a report
// may carry them.
func validName(s string) bool {
	s = strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")
	if s == "" || len(s) > 127 || s == "." || s == ".." || s[0] == '-' {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("+_.-", c)) {
			return false
		}
	}
	return true
}

// validAttr: lv_attr is ten printable ASCII characters (lvs(8)).
func validAttr(s string) bool {
	if len(s) != 10 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] > '~' {
			return false
		}
	}
	return true
}

// Read runs Argv. A non-zero exit is an error: lvs then reports a VG it
// could not read (locking, a missing device) and the report may lack it.
func Read(ctx context.Context, h *machine.Host) ([]*LV, machine.CmdResult, error) {
	res, err := h.Run(ctx, lvsArgv...)
	if err != nil {
		return nil, res, err
	}
	if res.Exit != 0 {
		return nil, res, machine.ExitError(res)
	}
	lvs, err := ParseReport(res.Stdout)
	return lvs, res, err
}
