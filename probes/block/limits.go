package block

import (
	"context"
	"strconv"

	"github.com/diskdoctor/diskdoctor/machine"
)

// Value is one number read from sysfs, with the file and its text; nil
// where the file is absent or not a number.
type Value struct {
	N    uint64
	Path string
	Raw  string
}

// Limits are the request and block size limits of a disk and its SCSI
// device's queue depth (Documentation/ABI/stable/sysfs-block,
// Documentation/block/queue-sysfs.rst).
type Limits struct {
	QueueDepth        *Value // device/queue_depth: commands the SCSI midlayer keeps outstanding
	MaxSectorsKB      *Value // queue/max_sectors_kb: the largest request the block layer builds
	MaxHWSectorsKB    *Value // queue/max_hw_sectors_kb: the largest the device and driver allow
	PhysicalBlockSize *Value // queue/physical_block_size, bytes
	LogicalBlockSize  *Value // queue/logical_block_size, bytes
	AlignmentOffset   *Value // alignment_offset of the disk: bytes from LBA 0 to its first aligned block
	Partitions        []PartitionStart
}

// PartitionStart is where a partition begins, in 512-byte sectors whatever
// the logical block size (the partition's start attribute, block/partitions/core.c),
// and the kernel's own alignment offset for it.
type PartitionStart struct {
	Name            string
	Start           *Value
	AlignmentOffset *Value // read only for a misaligned start
}

// ReadLimits reads d's limits; each is nil when its file cannot be read.
func ReadLimits(ctx context.Context, h *machine.Host, d *Device) Limits {
	link := "/sys/block/" + d.Name
	l := Limits{
		QueueDepth:        readValue(ctx, h, link+"/device/queue_depth"),
		MaxSectorsKB:      readValue(ctx, h, link+"/queue/max_sectors_kb"),
		MaxHWSectorsKB:    readValue(ctx, h, link+"/queue/max_hw_sectors_kb"),
		PhysicalBlockSize: readValue(ctx, h, link+"/queue/physical_block_size"),
		LogicalBlockSize:  readValue(ctx, h, link+"/queue/logical_block_size"),
		AlignmentOffset:   readValue(ctx, h, link+"/alignment_offset"),
	}
	var offset uint64
	if l.AlignmentOffset != nil {
		offset = l.AlignmentOffset.N
	}
	for _, p := range d.Partitions {
		dir := link + "/" + p.Name
		ps := PartitionStart{Name: p.Name, Start: readValue(ctx, h, dir+"/start")}
		// The partition's own offset is evidence for a misaligned start
		// only: it is not read for the others (a file fewer per partition).
		if ps.Start != nil && l.PhysicalBlockSize != nil {
			if bad, ok := Misaligned(ps.Start.N, l.PhysicalBlockSize.N, offset); ok && bad {
				ps.AlignmentOffset = readValue(ctx, h, dir+"/alignment_offset")
			}
		}
		l.Partitions = append(l.Partitions, ps)
	}
	return l
}

func readValue(ctx context.Context, h *machine.Host, p string) *Value {
	s, err := h.ReadString(ctx, p)
	if err != nil {
		return nil
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return nil
	}
	return &Value{N: n, Path: p, Raw: s}
}

// Misaligned reports whether a partition starting at sector start (512
// bytes each) begins inside a physical block of pbs bytes, the disk's
// first aligned block being offset bytes from LBA 0 (queue_limit_alignment_offset,
// include/linux/blkdev.h). ok is false when pbs is no power of two of at
// least 512, or the offset not below it: nothing is known.
func Misaligned(start, pbs, offset uint64) (misaligned, ok bool) {
	if pbs < 512 || pbs&(pbs-1) != 0 || offset >= pbs || start > (1<<63-1)/512 {
		return false, false
	}
	return (start*512+pbs-offset)%pbs != 0, true
}
