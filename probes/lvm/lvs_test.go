package lvm

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/diskdoctor/diskdoctor/internal/testutil"
	"github.com/diskdoctor/diskdoctor/machine"
)

func readFixture(t testing.TB, name string) []byte {
	b, err := os.ReadFile("../../fixtures/" + name + "/commands/lvs-report.json")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Real captures: netdata's lvs-report.json (lvm-thin-pool-78) and the
// Proxmox pve/data of lvmteam/lvm2 issue 57 (lvm-thin-pool-full, rendered
// from lvs' table as its README says).
func TestParseReportFixtures(t *testing.T) {
	lvs, err := ParseReport(readFixture(t, "lvm-thin-pool-78"))
	testutil.Must(t, err)
	if len(lvs) != 1 {
		t.Fatalf("%d LVs", len(lvs))
	}
	lv := lvs[0]
	if lv.FullName() != "cm-vg/root" || !lv.ThinPool() || !lv.Active() || lv.Health() != "-" ||
		!lv.HasData || lv.DataPercent != 78.89 || !lv.HasMeta || lv.MetaPercent != 19.25 ||
		!lv.HasSize || lv.Size != 214232465408 || lv.Pool != "" {
		t.Errorf("cm-vg/root = %+v", lv)
	}
	if !strings.HasPrefix(lv.Raw, `{"vg_name":"cm-vg"`) || strings.Contains(lv.Raw, "\n") {
		t.Errorf("raw = %q", lv.Raw)
	}

	lvs, err = ParseReport(readFixture(t, "lvm-thin-pool-full"))
	testutil.Must(t, err)
	var pools, thin []string
	for _, lv := range lvs {
		if lv.ThinPool() {
			pools = append(pools, lv.FullName())
			if lv.DataPercent != 97.33 || lv.MetaPercent != 3.75 {
				t.Errorf("pve/data = %+v", lv)
			}
		} else if lv.Pool == "data" {
			thin = append(thin, lv.Name)
			if lv.HasMeta {
				t.Errorf("thin volume %s has a metadata percentage", lv.Name)
			}
		}
	}
	if strings.Join(pools, ",") != "pve/data" || len(thin) != 3 {
		t.Errorf("pools %v, thin volumes %v", pools, thin)
	}
}

// lv_attr health characters of real pools, in the JSON form of their
// lvs tables: the OpenEBS lvm-localpv note's vg_k8s_thinpool out of data
// space (twi-aotzD-, 100.00 / 6.99) and the Gluesys tech blog's LVM
// snapshot article's tp_thinpool with read-only metadata (twi-aotzM-,
// 84.81 / 100.00).
func TestParseReportHealth(t *testing.T) {
	in := `{"report":[{"lv":[
{"vg_name":"vg_k8s","lv_name":"vg_k8s_thinpool","lv_attr":"twi-aotzD-","lv_size":"10737418240","data_percent":"100.00","metadata_percent":"6.99","pool_lv":""},
{"vg_name":"vg1","lv_name":"tp_thinpool","lv_attr":"twi-aotzM-","lv_size":"10737418240","data_percent":"84.81","metadata_percent":"100.00","pool_lv":""},
{"vg_name":"scratch","lv_name":"thin","lv_attr":"twi---tz--","lv_size":"15028191232","data_percent":"","metadata_percent":"","pool_lv":""}
]}]}`
	lvs, err := ParseReport([]byte(in))
	testutil.Must(t, err)
	if len(lvs) != 3 || lvs[0].Health() != "D" || lvs[0].DataPercent != 100 || lvs[1].Health() != "M" || lvs[1].MetaPercent != 100 {
		t.Fatalf("lvs = %+v", lvs)
	}
	// An inactive pool (LINBIT/linstor-server issue 393) has no percentages:
	// unknown, not 0.
	if p := lvs[2]; p.Active() || p.HasData || p.HasMeta {
		t.Errorf("inactive pool = %+v", p)
	}
}

func TestParseReportHostile(t *testing.T) {
	for name, in := range map[string]string{
		"not json":        "  LV   VG  Attr\n  data pve twi-aotz--\n",
		"no report":       `{"lv":[]}`,
		"truncated":       `{"report":[{"lv":[{"vg_name":"pve"`,
		"binary":          "\x00\xff{",
		"too large":       `{"report":[` + strings.Repeat(" ", MaxReportBytes) + `]}`,
		"an error string": "  Volume group \"pve\" not found\n",
	} {
		if _, err := ParseReport([]byte(in)); !errors.Is(err, machine.ErrParse) {
			t.Errorf("%s: err = %v, want ErrParse", name, err)
		}
	}
	in := `{"report":[{"lv":[
{"vg_name":"pve;rm -rf /","lv_name":"data","lv_attr":"twi-aotz--"},
{"vg_name":"pve","lv_name":"../x","lv_attr":"twi-aotz--"},
{"vg_name":"pve","lv_name":"data","lv_attr":"twi"},
{"vg_name":"pve","lv_name":"data","lv_attr":"twi-aotz--","data_percent":"101","metadata_percent":"NaN","lv_size":"-1"},
{"vg_name":"pve","lv_name":"n","lv_attr":"twi-aotz--","data_percent":97.5,"metadata_percent":"1e999"},
"a string", 5, null
]}]}`
	lvs, err := ParseReport([]byte(in))
	testutil.Must(t, err)
	if len(lvs) != 2 {
		t.Fatalf("kept %d LVs, want the last two: %+v", len(lvs), lvs)
	}
	if lv := lvs[0]; lv.HasData || lv.HasMeta || lv.HasSize {
		t.Errorf("out-of-range values taken: %+v", lv)
	}
	// json_std prints numbers as numbers.
	if lv := lvs[1]; !lv.HasData || lv.DataPercent != 97.5 || lv.HasMeta {
		t.Errorf("numeric field: %+v", lv)
	}
	if lvs, err := ParseReport([]byte(`{"report":[{"lv":[]}]}`)); err != nil || len(lvs) != 0 {
		t.Errorf("no LVs: %v %v", lvs, err)
	}
}

func TestArgvIsACopy(t *testing.T) {
	a := Argv()
	a[0] = "x"
	if Argv()[0] != "lvs" {
		t.Error("Argv shares its array")
	}
}

func FuzzParseReport(f *testing.F) {
	f.Add(readFixture(f, "lvm-thin-pool-78"))
	f.Add(readFixture(f, "lvm-thin-pool-full"))
	f.Add([]byte(`{"report":[{"lv":[{"vg_name":"a","lv_name":"b","lv_attr":"twi-aotzD-","data_percent":"100.00"}]}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		lvs, err := ParseReport(b)
		for _, lv := range lvs {
			if err != nil || lv.DataPercent < 0 || lv.DataPercent > 100 || lv.MetaPercent < 0 || lv.MetaPercent > 100 ||
				!validName(lv.VG) || !validName(lv.Name) || len(lv.Attr) != 10 {
				t.Fatalf("LV %+v with err %v", lv, err)
			}
			_ = lv.Health()
		}
	})
}

// The health fields of today's argv, and a report of the older argv
// without them: unknown (Has* false), not healthy.
func TestParseReportHealthFields(t *testing.T) {
	lvs, err := ParseReport([]byte(`{"report":[{"lv":[
{"vg_name":"kubuntu-vg", "lv_name":"root", "lv_attr":"rwi-aor-r-", "lv_size":"982465380352", "data_percent":"", "metadata_percent":"", "pool_lv":"", "lv_health_status":"refresh needed", "segtype":"raid1", "cache_mode":"", "cache_dirty_blocks":""},
{"vg_name":"vg", "lv_name":"cached", "lv_attr":"Cwi-aoC---", "lv_size":"1", "lv_health_status":"", "segtype":"cache", "cache_mode":"writeback", "cache_dirty_blocks":"1024"},
{"vg_name":"cm-vg", "lv_name":"root", "lv_attr":"twi-ao----", "lv_size":"214232465408", "data_percent":"78.89", "metadata_percent":"19.25"},
{"vg_name":"vg", "lv_name":"odd", "lv_attr":"-wi-a-----", "lv_size":"1", "lv_health_status":"\u001b[31mok", "segtype":"linear"}]}]}`))
	if err != nil || len(lvs) != 4 {
		t.Fatalf("%v %v", lvs, err)
	}
	r := lvs[0]
	if !r.HasHealth || r.HealthStatus != "refresh needed" || r.SegType != "raid1" || r.Health() != "r" || !r.HasCache || r.CacheMode != "" || r.HasDirty {
		t.Errorf("raid %+v", r)
	}
	if c := lvs[1]; c.CacheMode != "writeback" || !c.HasDirty || c.CacheDirtyBlocks != 1024 {
		t.Errorf("cache %+v", c)
	}
	if o := lvs[2]; o.HasHealth || o.HasSegType || o.HasCache || o.HasDirty {
		t.Errorf("old argv %+v", o)
	}
	if o := lvs[3]; o.HasHealth || o.SegType != "linear" {
		t.Errorf("a control character in a word: %+v", o)
	}
}
