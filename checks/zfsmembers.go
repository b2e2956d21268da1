package checks

import (
	"path"
	"strings"

	"github.com/diskdoctor/diskdoctor/probes/block"
	"github.com/diskdoctor/diskdoctor/probes/zfs"
)

// memberIndex maps every name a pool member can be printed as (kernel
// name, /dev path, by-id/by-partuuid/by-path link, with or without -P) to
// the disk that holds it.
type memberIndex struct {
	byName map[string]indexedMember
}

// indexedMember is the disk behind a name, and the partition's kernel name
// ("" for the whole disk).
type indexedMember struct {
	d    *block.Device
	part string
}

func newMemberIndex(devs []*block.Device) *memberIndex {
	// One map, sized for the names it will hold (a kernel name and a /dev
	// path per disk and partition, two per link): grown one name at a time
	// it would be rehashed at every doubling.
	hint := 0
	for _, d := range devs {
		hint += 2 + 2*len(d.ByID)
		if d.Udev != nil {
			hint += 2 * len(d.Udev.Links)
		}
		for _, p := range d.Partitions {
			hint += 2 + 2*len(p.Links)
		}
	}
	ix := &memberIndex{byName: make(map[string]indexedMember, hint)}
	add := func(d *block.Device, part, name string) {
		if name == "" {
			return
		}
		if _, ok := ix.byName[name]; !ok {
			ix.byName[name] = indexedMember{d, part}
		}
	}
	addLinks := func(d *block.Device, part string, links []string) {
		for _, l := range links {
			add(d, part, "/dev/"+l)
			add(d, part, path.Base(l))
		}
	}
	for _, d := range devs {
		if d.NVMePath {
			continue
		}
		add(d, "", d.Name)
		add(d, "", "/dev/"+d.Name)
		for _, l := range d.ByID {
			add(d, "", l)
			add(d, "", path.Base(l))
		}
		if d.Udev != nil {
			addLinks(d, "", d.Udev.Links)
		}
		for _, p := range d.Partitions {
			add(d, p.Name, p.Name)
			add(d, p.Name, "/dev/"+p.Name)
			addLinks(d, p.Name, p.Links)
		}
	}
	return ix
}

// resolve finds the disk behind a member name; links under /dev are
// followed where udev's record does not list them.
func (ix *memberIndex) resolve(env *Env, name string) (*block.Device, string) {
	if m, ok := ix.byName[name]; ok {
		return m.d, m.part
	}
	var cands []string
	if strings.HasPrefix(name, "/") {
		cands = []string{name}
	} else {
		for _, dir := range []string{"/dev/disk/by-id/", "/dev/disk/by-partuuid/", "/dev/disk/by-path/", "/dev/disk/by-vdev/", "/dev/mapper/", "/dev/"} {
			cands = append(cands, dir+name)
		}
	}
	for _, c := range cands {
		if !strings.HasPrefix(c, "/dev/") {
			continue
		}
		r, err := env.Host.Resolve(c)
		if err != nil {
			continue
		}
		if m, ok := ix.byName[path.Base(r)]; ok {
			return m.d, m.part
		}
	}
	return nil, ""
}

// member is one leaf vdev mapped to its disk.
type member struct {
	pool *zfs.Pool
	vdev *zfs.Vdev
	disk *block.Device
	part string
	row  *zfs.IostatRow
}
