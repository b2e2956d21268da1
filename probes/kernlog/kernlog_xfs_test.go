package kernlog

import "testing"

func TestXFSAllocStalls(t *testing.T) {
	k := &Log{Lines: Parse([]byte(`[  10.0] XFS (sdb1): Mounting V5 Filesystem
[ 900.1] XFS: possible memory allocation deadlock in kmem_alloc (mode:0x250)
[ 902.1] XFS: kworker/u8:2(1234) possible memory allocation deadlock size 65552 in kmem_alloc (mode:0x2400240)
[ 903.1] XFS: qemu-system-x86(99) possible memory allocation deadlock size 99999999999999999999999 in kmem_realloc (mode:0x250)
[ 904.1] XFS (sdb1): Ending clean mount
`))}
	s := k.XFSAllocStalls()
	if s == nil || s.Count != 3 || len(s.Lines) != 3 || s.Last.Num != 4 {
		t.Fatalf("got %+v, want 3 warnings, the last on line 4", s)
	}
	if s.MaxSize < 65552 {
		t.Errorf("MaxSize %d, want at least 65552 (an overlong size is bounded, not wrapped)", s.MaxSize)
	}
	if (&Log{Lines: Parse([]byte("[ 1.0] XFS (sdb1): Ending clean mount\n"))}).XFSAllocStalls() != nil {
		t.Error("a log without the warning gave stalls")
	}
	var nilLog *Log
	if nilLog.XFSAllocStalls() != nil {
		t.Error("nil log gave stalls")
	}
}
