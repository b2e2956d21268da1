// Package zfs reads ZFS pool and dataset state: zpool status, zpool iostat,
// zpool get, zfs get, module parameters and the ARC ceiling.
package zfs
