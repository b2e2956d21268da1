// Package bootcfg reads the boot-time configuration that decides a disk's
// settings: write-cache rules (udev rules.d, hdparm.conf, systemd units) and
// fstrim timers and cron jobs.
package bootcfg
