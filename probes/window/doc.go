// Package window samples I/O over a window: /proc/diskstats, per-process
// /proc/PID/io and pressure, twice, and the rates between.
package window
