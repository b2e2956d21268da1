package block

// This file answers "what is under this path?" for `diskdoctor bench`: the
// path's kind and device number (stat), its free space (statfs), the mount
// holding it, the block devices and whole disks beneath, what else uses a
// device (mounts, swap, holders, pool and RAID membership) and the ZFS ARC
// ceiling. A recorded machine has no live tree to stat, so there a path is
// a directory on the mount whose mount point contains it.

// Map relates the block devices of an inventory: device numbers to
// names, partitions to their disks, stacked devices (dm, md) to the devices
// under them.
type Map struct {
	byDevNo map[string]string
	devNo   map[string]string
	parent  map[string]string   // partition -> disk
	under   map[string][]string // holder -> devices (disks or partitions) it is stacked on
	devs    map[string]*Device
}

// NewMap builds the map from an inventory (ReadBlockDevices).
func NewMap(devs []*Device) *Map {
	m := &Map{byDevNo: map[string]string{}, devNo: map[string]string{}, parent: map[string]string{}, under: map[string][]string{}, devs: map[string]*Device{}}
	for _, d := range devs {
		m.devs[d.Name] = d
		if d.DevNo != "" {
			m.byDevNo[d.DevNo], m.devNo[d.Name] = d.Name, d.DevNo
		}
		for _, h := range d.Holders {
			m.under[h] = append(m.under[h], d.Name)
		}
		for _, p := range d.Partitions {
			m.parent[p.Name] = d.Name
			if p.DevNo != "" {
				m.byDevNo[p.DevNo], m.devNo[p.Name] = p.Name, p.DevNo
			}
			for _, h := range p.Holders {
				m.under[h] = append(m.under[h], p.Name)
			}
		}
	}
	return m
}

// Name is the device with this "major:minor", "" when none.
func (m *Map) Name(devNo string) string { return m.byDevNo[devNo] }

// DevNoOf is a device's or partition's "major:minor".
func (m *Map) DevNoOf(name string) string { return m.devNo[name] }

// SizeBytes is a device's size; for a partition, its disk's (an upper
// bound); 0 unknown.
func (m *Map) SizeBytes(name string) uint64 {
	if p, ok := m.parent[name]; ok {
		name = p
	}
	if d := m.devs[name]; d != nil && d.SizeBytes != nil {
		return *d.SizeBytes
	}
	return 0
}

// Device is the inventoried disk (or stacked device) of that name.
func (m *Map) Device(name string) *Device { return m.devs[name] }

// WholeDisks are the disks beneath a device: a partition's disk, the
// members of dm and md devices, recursively.
func (m *Map) WholeDisks(name string) []string {
	var out []string
	seen := map[string]bool{}
	var walk func(n string, depth int)
	walk = func(n string, depth int) {
		if depth > 16 || n == "" || seen[n] {
			return
		}
		seen[n] = true
		if p, ok := m.parent[n]; ok {
			walk(p, depth+1)
			return
		}
		if below := m.under[n]; len(below) > 0 {
			for _, b := range below {
				walk(b, depth+1)
			}
			return
		}
		out = append(out, n)
	}
	walk(name, 0)
	return out
}

// Stacked lists a device, its partitions and everything stacked on them
// (holders, recursively): the names whose I/O lands on the device.
func (m *Map) Stacked(name string) []string {
	var out []string
	seen := map[string]bool{}
	var walk func(n string, depth int)
	walk = func(n string, depth int) {
		if depth > 16 || seen[n] {
			return
		}
		seen[n] = true
		out = append(out, n)
		if d := m.devs[n]; d != nil {
			for _, p := range d.Partitions {
				walk(p.Name, depth+1)
				for _, h := range p.Holders {
					walk(h, depth+1)
				}
			}
			for _, h := range d.Holders {
				walk(h, depth+1)
			}
		}
	}
	walk(name, 0)
	return out
}
