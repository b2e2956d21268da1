// Package usb reads the USB device a disk hangs off: the device's
// negotiated speed and bcdUSB version, its BOS descriptor's SuperSpeed
// capability, the mass-storage interface's driver (uas or usb-storage),
// the peer of the port it is plugged into (Documentation/ABI/testing/
// sysfs-bus-usb), and the kernel log's lines about the device and its
// host controller (drivers/usb/core/hub.c, drivers/usb/storage/uas.c,
// uas-detect.h, drivers/usb/host/xhci.c).
package usb
