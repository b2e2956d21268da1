package checks

import (
	"strconv"

	"github.com/diskdoctor/diskdoctor/probes/md"
)

// mdStripePageBytes is the page the stripe cache counts in: PAGE_SIZE,
// 4 KiB on x86 and on the arm64 kernels distributions ship (raid5.c
// allocates one page per member per stripe_head).
const mdStripePageBytes = 4096

// setMDStripeCache: the stripe cache of a raid4/5/6 array
// (md/stripe_cache_size, pages per member; md.rst: memory_consumed =
// system_page_size * nr_disks * stripe_cache_size), what it costs in
// memory, and whether every member sits on a rotating disk. Nil where the
// array has no stripe cache or sysfs was not read.
func setMDStripeCache(o *Observation, a md.Array, s md.Sysfs, mm *mdMembership) {
	if s.StripeCacheSize == nil {
		o.Set("md_stripe_cache_size", nil)
		o.Set("md_stripe_cache_mib", nil)
	} else {
		n := *s.StripeCacheSize
		ev := Evidence{md.SysfsPath(a.Name, "stripe_cache_size"), strconv.FormatInt(n, 10)}
		o.Set("md_stripe_cache_size", n, ev)
		o.Set("md_stripe_cache_mib", round(float64(n)*mdStripePageBytes*float64(a.Disks)/(1<<20), 1))
	}
	o.Set("md_members_rotational", mdMembersRotational(a, mm))
}

// mdMembersRotational: true when every member is on a disk whose
// queue/rotational is 1, false when one is not, nil when a member's
// disk or its rotational flag is unknown.
func mdMembersRotational(a md.Array, mm *mdMembership) any {
	if len(a.Members) == 0 {
		return nil
	}
	all := true
	for _, m := range a.Members {
		d := mm.owner[m.Name]
		if d == nil || d.Rotational == nil {
			return nil
		}
		all = all && *d.Rotational
	}
	return all
}
