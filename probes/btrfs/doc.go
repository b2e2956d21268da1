// Package btrfs reads a mounted btrfs filesystem as btrfs-progs and the
// kernel's sysfs show it: its devices and the missing ones (btrfs
// filesystem show, devinfo/<id>/missing), how much of each device is not
// yet allocated to chunks (btrfs filesystem usage -b), the block group
// profiles and metadata use (usage, allocation/), the persistent device
// error counters (btrfs device stats, devinfo/<id>/error_stats), a scrub
// or balance in progress (scrub status, balance status,
// exclusive_operation) and quotas (qgroups/). Each parser takes the bytes
// the Host read and is pure.
package btrfs
