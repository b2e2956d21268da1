// Package md reads Linux software RAID state from /proc/mdstat.
package md
