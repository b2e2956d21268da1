package block

import (
	"context"
	"sort"
	"strings"

	"github.com/diskdoctor/diskdoctor/internal/parse"
	"github.com/diskdoctor/diskdoctor/machine"
)

// Multipath is what makes a disk one path of a device-mapper multipath
// map: the map (its kernel name and dm name) and every path of it.
type Multipath struct {
	Map, Name string   // dm-1, mpatha
	Paths     []string // every path of the map, in name order
	// UUID is the map's dm UUID (mpath-<wwid>) and UUIDSource the file
	// it was read from: the map's udev record or its dm/uuid.
	UUID, UUIDSource string
}

// Primary is the path through which the drive itself is asked (SMART):
// the first of the map's paths. Every path reaches the same drive.
func (m *Multipath) Primary() string {
	if m == nil || len(m.Paths) == 0 {
		return ""
	}
	return m.Paths[0]
}

// MultipathUUIDPrefix is the prefix multipathd gives every map's dm UUID
// (libmultipath/devmapper.c UUID_PREFIX "mpath-").
const MultipathUUIDPrefix = "mpath-"

// DMUUID is a device-mapper device's dm UUID and the file it was read
// from: udev's DM_UUID, else the kernel's dm/uuid
// (Documentation/ABI/testing/sysfs-block-dm). The UUID's prefix names the
// device's owner (LVM-, CRYPT-, mpath-); "" where neither says.
func DMUUID(ctx context.Context, h *machine.Host, d *Device) (uuid, source string) {
	if u := d.Udev.Prop("DM_UUID"); u != "" {
		return u, d.Udev.Path
	}
	p := "/sys/block/" + d.Name + "/dm/uuid"
	u, _ := h.ReadString(ctx, p)
	return u, p
}

// markMultipath gives each disk held by a multipath map its Multipath.
// A disk held by a dm device is a path when the holder's dm UUID starts
// with mpath- (udev's DM_UUID, else the kernel's dm/uuid,
// Documentation/ABI/testing/sysfs-block-dm); a map whose UUID cannot be
// read makes no path.
func markMultipath(ctx context.Context, h *machine.Host, devs []*Device) {
	byName := make(map[string]*Device, len(devs))
	for _, d := range devs {
		byName[d.Name] = d
	}
	maps := map[string]*Multipath{}
	for _, d := range devs {
		if d.Virtual {
			continue
		}
		for _, hn := range d.Holders {
			hd := byName[hn]
			if hd == nil || !strings.HasPrefix(hn, "dm-") {
				continue
			}
			m, seen := maps[hn]
			if !seen {
				m = multipathMap(ctx, h, hd)
				maps[hn] = m
			}
			if m != nil {
				m.Paths = append(m.Paths, d.Name)
				d.Multipath = m
			}
		}
	}
	for _, m := range maps {
		if m != nil {
			sort.Slice(m.Paths, func(i, j int) bool { return parse.NaturalLess(m.Paths[i], m.Paths[j]) })
		}
	}
}

// multipathMap is dm device hd as a multipath map, or nil when it is
// another kind of dm device (LVM, dm-crypt) or its UUID is unknown.
func multipathMap(ctx context.Context, h *machine.Host, hd *Device) *Multipath {
	m := &Multipath{Map: hd.Name, Name: hd.Udev.Prop("DM_NAME")}
	m.UUID, m.UUIDSource = DMUUID(ctx, h, hd)
	if !strings.HasPrefix(m.UUID, MultipathUUIDPrefix) {
		return nil
	}
	if m.Name == "" {
		m.Name, _ = h.ReadString(ctx, "/sys/block/"+hd.Name+"/dm/name")
	}
	m.UUID, m.Name = strings.Clone(m.UUID), strings.Clone(m.Name)
	return m
}
