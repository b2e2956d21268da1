// Package bcache reads the kernel's bcache devices from sysfs: each
// /sys/block/bcacheN/bcache/ (the backing device's state, cache mode and
// dirty data) and the cache set it is attached to under /sys/fs/bcache/
// (Documentation/admin-guide/bcache.rst, "Sysfs - backing device" and
// "Sysfs - cache set").
package bcache
