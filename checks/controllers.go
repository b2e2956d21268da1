package checks

import "github.com/diskdoctor/diskdoctor/probes/block"

// controllerDrivers are the drivers that own a storage controller; the
// rest of a device path (sd, scsi hosts, PCI bridges) is plumbing.
var controllerDrivers = map[string]bool{
	"ahci": true, "ata_piix": true, "nvme": true, "hpsa": true, "cciss": true, "smartpqi": true, "megaraid_sas": true,
	"mpt3sas": true, "mpt2sas": true, "aacraid": true, "usb-storage": true, "uas": true,
	"virtio_blk": true, "virtio_scsi": true, "sdhci-pci": true, "mmc_block": true, "isci": true, "mvsas": true, "pm80xx": true,
}

func controllerDriver(d *block.Device) string {
	for _, drv := range d.Drivers {
		if controllerDrivers[drv] {
			return drv
		}
	}
	return ""
}

// hbaDrivers pass disks through (IT mode); the RAID drivers own the disks
// and their caches.
var hbaDrivers = map[string]bool{"mpt3sas": true, "mpt2sas": true, "isci": true, "mvsas": true, "pm80xx": true}
