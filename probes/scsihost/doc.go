// Package scsihost reads the SATA link power management policy of a SCSI
// host: /sys/class/scsi_host/host<N>/link_power_management_policy, which
// libata adds to the hosts of LPM-capable controllers (ahci among them;
// drivers/ata/libata-sata.c, ata_scsi_lpm_store/ata_scsi_lpm_show, and
// Documentation/ABI/testing/sysfs-class-scsi_host).
package scsihost
