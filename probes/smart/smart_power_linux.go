//go:build linux

package smart

import (
	"fmt"
	"unsafe"

	"syscall"
)

// sgIOHdr is struct sg_io_hdr (include/scsi/sg.h), interface 'S'.
type sgIOHdr struct {
	interfaceID    int32
	dxferDirection int32
	cmdLen         uint8
	mxSbLen        uint8
	iovecCount     uint16
	dxferLen       uint32
	dxferp         uintptr
	cmdp           uintptr
	sbp            uintptr
	timeout        uint32
	flags          uint32
	packID         int32
	usrPtr         uintptr
	status         uint8
	maskedStatus   uint8
	msgStatus      uint8
	sbLenWr        uint8
	hostStatus     uint16
	driverStatus   uint16
	resid          int32
	duration       uint32
	info           uint32
}

const (
	sgIO         = 0x2285 // SG_IO
	sgDxferNone  = -1
	ataPassThr16 = 0x85
)

// ataCheckPower sends CHECK POWER MODE through SG_IO as an ATA PASS-THROUGH
// (16) with CK_COND set, so the drive's registers come back in the sense
// data. Non-data, read-only: it neither wakes the drive nor changes a
// setting.
func ataCheckPower(path string) (mode string, asleep bool, err error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return "", false, err
	}
	defer syscall.Close(fd)
	cdb := [16]byte{ataPassThr16, 3 << 1, 0x20} // protocol 3 (non-data), CK_COND
	cdb[14] = ataCheckPowerMode
	var sense [32]byte
	h := sgIOHdr{interfaceID: 'S', dxferDirection: sgDxferNone, cmdLen: uint8(len(cdb)), mxSbLen: uint8(len(sense)),
		cmdp: uintptr(unsafe.Pointer(&cdb[0])), sbp: uintptr(unsafe.Pointer(&sense[0])), timeout: 10000}
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), sgIO, uintptr(unsafe.Pointer(&h))); e != 0 {
		return "", false, e
	}
	count, ok := ataReturnCount(sense[:h.sbLenWr])
	if !ok {
		return "", false, fmt.Errorf("CHECK POWER MODE: no ATA status in the sense data (status %#x, host %#x, driver %#x)", h.status, h.hostStatus, h.driverStatus)
	}
	mode, asleep = ataPowerMode(count)
	return mode, asleep, nil
}
