package zfs

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/diskdoctor/diskdoctor/internal/testutil"
	"github.com/diskdoctor/diskdoctor/machine"
)

// The exact values of openzfs/zfs#4657 (tonyhutter's `zpool list -p`,
// 2016-05-16), in ListArgv's columns and tab-separated as -H prints them.
const list4657 = "mypool\t2080374784\t547272192\t1533102592\t1\t26\tONLINE\n" +
	"mypool2\t486539264\t447889920\t38649344\t20\t92\tONLINE\n"

func TestParseList(t *testing.T) {
	rows, err := ParseList([]byte(list4657))
	testutil.Must(t, err)
	if len(rows) != 2 {
		t.Fatalf("%d rows, want 2", len(rows))
	}
	r := rows[1]
	if r.Name != "mypool2" || !r.HasSize || r.Size != 486539264 || r.Alloc != 447889920 || r.Free != 38649344 ||
		!r.HasFrag || r.Frag != 20 || !r.HasCapacity || r.Capacity != 92 || r.Health != "ONLINE" {
		t.Errorf("mypool2 = %+v", r)
	}
	if rows[0].Capacity != 26 || rows[0].Frag != 1 {
		t.Errorf("mypool = %+v", rows[0])
	}
}

func TestParseListUnknownColumns(t *testing.T) {
	// "-" for fragmentation without spacemap_histogram, and for every
	// column of a FAULTED pool (the shared sample list-p-faulted-pool.txt
	// shows both): unknown, not zero.
	rows, err := ParseList([]byte("zion\t-\t-\t-\t-\t-\tFAULTED\nold\t100\t50\t50\t-\t8%\tONLINE\n"))
	testutil.Must(t, err)
	if rows[0].HasSize || rows[0].HasFrag || rows[0].HasCapacity || rows[0].Health != "FAULTED" {
		t.Errorf("faulted pool = %+v", rows[0])
	}
	if rows[1].HasFrag || !rows[1].HasCapacity || rows[1].Capacity != 8 {
		t.Errorf("old pool = %+v", rows[1])
	}
}

func TestParseListHostile(t *testing.T) {
	for name, in := range map[string]string{
		"human units":      "NAME SIZE ALLOC FREE FRAG CAP HEALTH\ntank 21.8T 21.4T 348G 59% 98% ONLINE\n",
		"six columns":      "tank\t1\t1\t0\t0\t100\n",
		"a dataset name":   "tank/home\t1\t1\t0\t0\t100\tONLINE\n",
		"a digit first":    "0tank\t1\t1\t0\t0\t100\tONLINE\n",
		"binary":           "\x00\xff\t\t\t\t\t\t\n",
		"an error message": "internal error: out of memory\n",
	} {
		if _, err := ParseList([]byte(in)); !errors.Is(err, machine.ErrParse) {
			t.Errorf("%s: err = %v, want ErrParse", name, err)
		}
	}
	rows, err := ParseList([]byte("tank\t-1\t1e3\t0x10\t101\t-5\tONLINE\n"))
	testutil.Must(t, err)
	if r := rows[0]; r.HasSize || r.HasFrag || r.HasCapacity {
		t.Errorf("out-of-range values taken: %+v", r)
	}
	if rows, err := ParseList(nil); err != nil || len(rows) != 0 {
		t.Errorf("no pools: %v %v", rows, err)
	}
}

// The shared FreeNAS sample has telegraf's column order (name,health,
// size,…,dedupratio): eight columns, not ListArgv's seven. It must be
// refused, not misread.
func TestParseListOtherColumnOrder(t *testing.T) {
	p := filepath.Join(testutil.SharedSamples(), "zpool", "list-Hp-freenas.txt")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Skipf("no shared sample %s", p)
	}
	if _, err := ParseList(b); !errors.Is(err, machine.ErrParse) {
		t.Errorf("err = %v, want ErrParse", err)
	}
}

// The zpool status of openzfs/zfs#11414 (maxximino, 2020-12-29, OpenZFS
// 2.0.0 on Debian sid): a mirror with one member at 512B configured on a
// 4096B-native disk.
const status11414 = `  pool: bootpool
 state: ONLINE
status: One or more devices are configured to use a non-native block size.
        Expect reduced performance.
action: Replace affected devices with devices that support the
        configured block size, or migrate data to a properly configured
        pool.
  scan: resilvered 4.10G in 00:04:35 with 0 errors on Wed Dec 30 00:25:51 2020
config:

        NAME        STATE     READ WRITE CKSUM
        bootpool    ONLINE       0     0     0
          mirror-0  ONLINE       0     0     0
            sda1    ONLINE       0     0     0
            sdb4    ONLINE       0     0     0  block size: 512B configured, 4096B native

errors: No known data errors
`

func TestParseStatusBlockSize(t *testing.T) {
	st, err := ParseStatus([]byte(status11414))
	testutil.Must(t, err)
	p := st.Pool("bootpool")
	if !p.NonNativeBlockSize {
		t.Errorf("status %q: non-native block size not seen", p.Status)
	}
	var got []string
	for _, v := range p.Leaves() {
		if v.BlockNative > 0 {
			got = append(got, v.Name)
			if v.BlockConfigured != 512 || v.BlockNative != 4096 || v.State != "ONLINE" || v.Cksum != 0 {
				t.Errorf("sdb4 = %+v", v)
			}
		}
	}
	if len(got) != 1 || got[0] != "sdb4" {
		t.Errorf("members with a block size note = %v, want [sdb4]", got)
	}
}

func TestParseStatusBlockSizeHostile(t *testing.T) {
	head := "  pool: p\n state: ONLINE\nconfig:\n\n\tNAME STATE READ WRITE CKSUM\n\tp ONLINE 0 0 0\n"
	for name, note := range map[string]string{
		"native not larger":  "block size: 4096B configured, 4096B native",
		"native smaller":     "block size: 4096B configured, 512B native",
		"zero":               "block size: 0B configured, 4096B native",
		"overflow":           "block size: 99999999999999999999B configured, 4096B native",
		"truncated":          "block size: 512B configured,",
		"no unit":            "block size: 512 configured, 4096 native",
		"another note":       "(trim unsupported)",
		"status text inside": "One or more devices are configured to use a non-native block size.",
	} {
		st, err := ParseStatus([]byte(head + "\t  d ONLINE 0 0 0  " + note + "\n"))
		testutil.Must(t, err)
		p := st.Pools[0]
		if v := p.Vdevs[0]; v.BlockConfigured != 0 || v.BlockNative != 0 {
			t.Errorf("%s: block sizes %d/%d taken", name, v.BlockConfigured, v.BlockNative)
		}
		if p.NonNativeBlockSize {
			t.Errorf("%s: a vdev note is not the pool's status", name)
		}
	}
}
