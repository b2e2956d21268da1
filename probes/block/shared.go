package block

import (
	"context"
	"path"
	"slices"
	"sync"

	"github.com/diskdoctor/diskdoctor/machine"
)

// shared holds what one inventory reads from directories that every
// device, or every namespace of a subsystem, would otherwise list again:
// /dev/disk/by-id, which grows with the machine's disks (udev makes
// several links per disk and partition), and an NVMe subsystem's
// directory, which grows with its namespaces. Each is listed once, when
// the first device asks, and indexed; a device's lookup is then a map
// read, so the inventory's listings grow with the devices, not with
// their square (issue #26).
// byIDDir is where udev makes its persistent links by identity
// (60-persistent-storage.rules).
const byIDDir = "/dev/disk/by-id"

type shared struct {
	h *machine.Host

	byIDOnce sync.Once
	// byID maps the kernel name a /dev/disk/by-id link points at to its
	// links, in the order of the listing (sorted by link name).
	byID map[string][]string

	subsysMu sync.Mutex
	subsys   map[string][]string // subsystem directory → entry names
}

// byIDLinks is the /dev/disk/by-id links that resolve to the device name
// (relative or absolute, udev writes ../../sda), for a device without a
// udev record (a recording made without the udev database).
func (s *shared) byIDLinks(ctx context.Context, name string) []string {
	s.byIDOnce.Do(func() {
		s.byID = map[string][]string{}
		// udev's names only (isUdevLinkName): a planted name with other
		// characters would end up in printed commands.
		links, _ := s.h.LinksIn(ctx, byIDDir, isUdevLinkName)
		for _, l := range links {
			b := path.Base(l.Target)
			s.byID[b] = append(s.byID[b], byIDDir+"/"+l.Name)
		}
	})
	return s.byID[name]
}

// subsystemNames lists an NVMe subsystem's directory once for all its
// namespaces (each holds the subsystem's controllers, the same for all).
func (s *shared) subsystemNames(ctx context.Context, dir string) []string {
	s.subsysMu.Lock()
	defer s.subsysMu.Unlock()
	if v, ok := s.subsys[dir]; ok {
		return v
	}
	v := names(ctx, s.h, dir)
	if ctx.Err() != nil {
		// A listing cut short by the deadline is not what the directory holds.
		return v
	}
	if s.subsys == nil {
		s.subsys = map[string][]string{}
	}
	s.subsys[dir] = v
	return v
}

// keepOwnByIDLinks leaves a by-id link only with the device it resolves
// to. udev's record of a device lists every link the device claims (its
// S: lines), but where two devices claim one, udev points the link at the
// claimant of the highest link priority (its L: line; the device-mapper
// rules give a multipath map 50, above its paths): a multipath map and its
// paths, or both paths of a dual-ported disk, all list the shared
// scsi-3…/wwn-0x… links, which name one of them. Only a link claimed
// twice is read; one that cannot be read stays with every claimant
// (which of them it names is unknown).
func keepOwnByIDLinks(h *machine.Host, devs []*Device) {
	claims := map[string][]*Device{}
	for _, d := range devs {
		for _, l := range d.ByID {
			claims[l] = append(claims[l], d)
		}
	}
	for l, ds := range claims {
		if len(ds) < 2 {
			continue
		}
		target, err := h.Readlink(l)
		if err != nil {
			continue
		}
		owner := path.Base(target)
		for _, d := range ds {
			if d.Name != owner {
				d.ByID = slices.DeleteFunc(d.ByID, func(x string) bool { return x == l })
			}
		}
	}
}
