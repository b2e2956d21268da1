// Package block reads the block devices of /sys/block and /sys/class/block:
// identity, queue, partitions, holders and the controllers above them.
package block
