package checks

// discardSettings says, by hypervisor (whereruns.go's names, or the disk's
// own), where a virtual disk is made to pass the guest's discards to the
// host's storage: a thin or sparse backing only shrinks when they arrive.
// Each names only its own hypervisor's setting; a cloud's volumes have
// none (the guest cannot make the provider reclaim anything).
var discardSettings = map[string]string{
	// QEMU's qemu-options.hx (-drive discard=ignore|unmap); virtio-blk
	// passes discard from QEMU 4.0 and Linux 5.0 (VIRTIO_BLK_F_DISCARD).
	"QEMU":    "QEMU's -drive discard=unmap (libvirt <driver discard='unmap'/>), on virtio-scsi or on virtio-blk from QEMU 4.0, with a backing that can shrink (qcow2, a sparse raw file, thin LVM, ZFS)",
	hvQEMUKVM: "QEMU's -drive discard=unmap (libvirt <driver discard='unmap'/>), on virtio-scsi or on virtio-blk from QEMU 4.0, with a backing that can shrink (qcow2, a sparse raw file, thin LVM, ZFS)",
	// Proxmox VE Administration Guide, "Hard Disk": the Discard option.
	hvProxmox: "the disk's Discard checkbox on the Proxmox host (Hardware, Hard Disk, Discard; qm set VMID --scsi0 STORAGE:DISK,discard=on) on thin storage (LVM-thin, ZFS, qcow2, Ceph RBD); the guest sees it after a full stop and start",
	// VMware vSphere Storage, "Space Reclamation Requests from Guest
	// Operating Systems": thin disks on VMFS6, Linux guests from virtual
	// hardware 13.
	hvVMware: "a thin-provisioned virtual disk on a VMFS6 datastore with space reclamation on; a Linux guest sees UNMAP from virtual hardware version 13 (a thick disk passes none)",
	// Microsoft, "Hyper-V storage: TRIM/UNMAP on virtual hard disks".
	hvHyperV: "a dynamically expanding VHDX (a fixed one has nothing to give back) on the Hyper-V host, which passes UNMAP through unless the host turned delete notifications off (fsutil behavior query DisableDeleteNotify)",
	// Firecracker's docs/api_requests: a drive has no discard option.
	hvFirecracker: "none: Firecracker's drive API (PUT /drives) has no discard option, so a guest whose drive shows none cannot give blocks back; reclaim them on the host (fallocate --dig-holes on the image while the guest is stopped)",
	// VirtualBox manual, VBoxManage storageattach --discard.
	hvVirtualBox: "VBoxManage storageattach VM --storagectl CONTROLLER --port N --discard on (a VDI image; --nonrotational on to show an SSD)",
	hvKVM:        "the discard option of the disk in the host's virtual machine monitor (the kernel names KVM, not the program that emulates the disk)",
	"virtio":     "the discard option of the disk on the host (the guest cannot tell which program provides its virtio disk)",
}
