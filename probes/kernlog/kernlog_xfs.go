package kernlog

import "regexp"

// xfsAllocStallRe is XFS's warning for an allocation it may not fail and
// keeps retrying: kmem_alloc, kmem_zone_alloc and kmem_realloc
// (fs/xfs/kmem.c) and xfs_buf_allocate_memory (fs/xfs/xfs_buf.c) print it
// every 100 retries. 3.x: "XFS: possible memory allocation deadlock in
// kmem_alloc (mode:0x250)"; 4.x–6.x add the task and the size:
// "XFS: <comm>(<pid>) possible memory allocation deadlock size 65552 in
// kmem_alloc (mode:0x…)". It is printed with xfs_err(NULL, …): no
// filesystem is named.
const xfsAllocStallRe = `^XFS: (?:.*\(\d+\) )?possible memory allocation deadlock(?: size (?P<size>\d+))? in (?P<fn>\w+)`

var xfsAllocStall = regexp.MustCompile(xfsAllocStallRe)

// maxXFSAllocLines bounds the lines XFSAllocStalls keeps; Count has all.
const maxXFSAllocLines = 8

// XFSAllocStalls is what the log says of XFS allocations stalled in
// retries: how many warnings, the first lines (up to maxXFSAllocLines)
// and the last, and the largest size printed (0 when none is).
type XFSAllocStalls struct {
	Count   int
	Lines   []Line
	Last    Line
	MaxSize uint64
}

// XFSAllocStalls scans the log for XFS's "possible memory allocation
// deadlock" warnings; nil when there is none.
func (k *Log) XFSAllocStalls() *XFSAllocStalls {
	if k == nil {
		return nil
	}
	var s *XFSAllocStalls
	for _, l := range k.Lines {
		m := xfsAllocStall.FindStringSubmatch(l.Text)
		if m == nil {
			continue
		}
		if s == nil {
			s = &XFSAllocStalls{}
		}
		s.Count++
		if len(s.Lines) < maxXFSAllocLines {
			s.Lines = append(s.Lines, l)
		}
		s.Last = l
		var n uint64
		for _, c := range m[1] {
			if n > 1<<40 {
				break
			}
			n = n*10 + uint64(c-'0')
		}
		if n > s.MaxSize {
			s.MaxSize = n
		}
	}
	return s
}
