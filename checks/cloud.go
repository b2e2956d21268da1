package checks

import (
	"context"
	"fmt"
	"path"
	"regexp"
	"strconv"
	"strings"

	"github.com/diskdoctor/diskdoctor/probes/block"
	"github.com/diskdoctor/diskdoctor/probes/cloud"
	"github.com/diskdoctor/diskdoctor/probes/mount"
)

func init() {
	Register(Check{Name: "cloud", Description: "cloud disks: EBS, instance store, Azure managed and temporary, GCP Persistent Disk and local SSD; the NVMe I/O timeout of EBS volumes", Run: cloudCheck})
}

// Cloud disk kinds (cloud_disk).
const (
	diskEBS           = "ebs"
	diskInstanceStore = "instance-store"
	diskAzureManaged  = "azure-managed"
	diskAzureTemp     = "azure-temporary"
	diskAzure         = "azure" // a Msft Virtual Disk on Azure without the links that tell which
	diskGCPPD         = "gcp-pd"
	diskGCPLocal      = "gcp-local-ssd"
)

// ephemeralKinds lose their data at stop, resize or host failure.
var ephemeralKinds = map[string]bool{diskInstanceStore: true, diskAzureTemp: true, diskGCPLocal: true}

func cloudCheck(ctx context.Context, env *Env) []*Observation {
	devs := env.Judged(ctx)
	plat, _ := env.Platform(ctx)
	klog, _ := env.KernelLog(ctx)
	all, _ := env.Devices(ctx)
	where := whereItRuns(plat, klog, all)
	var nvme []string
	for _, d := range devs {
		if k, _ := cloudDiskKind(d, where.Provider); k != "" && d.Transport == "nvme" {
			nvme = append(nvme, d.Name)
		}
	}
	var tmo *cloud.NVMeTimeouts
	if len(nvme) > 0 {
		var err error
		tmo, err = Probe(ctx, env, func(ctx context.Context) (*cloud.NVMeTimeouts, error) {
			return cloud.ReadNVMeTimeouts(ctx, env.Host, nvme)
		})
		if err != nil {
			env.Skip("nvme-io-timeout", "", err)
		}
	}
	byDevNo := env.MountsByDevNo(ctx)
	_, mountsErr := env.Mounts(ctx)
	var out []*Observation
	for _, d := range devs {
		kind, ev := cloudDiskKind(d, where.Provider)
		if kind == "" {
			// Not a cloud's disk: nothing of this check applies, and
			// a physical disk's report stays as it was.
			continue
		}
		o := NewObservation("cloud", KindDevice, d.Name)
		o.Set("cloud_disk", kind, ev...)
		o.Set("ephemeral_disk", ephemeralKinds[kind], ev...)
		if id, ev := gcpDiskName(d, kind); id != "" {
			o.Set("cloud_volume_id", id, ev)
		} else {
			o.Set("cloud_volume_id", ebsVolumeID(d, kind))
		}
		if ephemeralKinds[kind] {
			holds, ev := ephemeralHolds(d, byDevNo)
			if len(holds) == 0 && mountsErr != nil {
				o.Set("ephemeral_holds", nil) // what is mounted is not known
			} else {
				o.Set("ephemeral_holds", nonNil(holds), ev...)
			}
		} else {
			o.Set("ephemeral_holds", []string{})
		}
		if d.Transport == "nvme" {
			setNVMeTimeout(o, d, tmo)
		}
		out = append(out, o)
	}
	skipInstanceType(env, where, devs)
	return out
}

// skipInstanceType says why the instance's own cap on its volumes cannot
// be judged where the guest does not show its type: Azure keeps the VM
// size out of DMI (product_name is "Virtual Machine"), GCP the machine
// type (product_name is "Google Compute Engine"). The type is not guessed;
// a site names it.
func skipInstanceType(env *Env, where Where, devs []*block.Device) {
	if where.MachineType != "" || where.Provider != "Azure" && where.Provider != "GCP" {
		return
	}
	for _, d := range devs {
		if k, _ := cloudDiskKind(d, where.Provider); k == diskAzureManaged || k == diskGCPPD || k == diskAzure {
			what := map[string]string{"Azure": "VM size", "GCP": "machine type"}[where.Provider]
			env.Skip("cloud-instance-cap", "", withHint(
				fmt.Errorf("%s: the %s is not in DMI, and the instance's cap on all its disks together depends on it", where.Provider, what),
				"name it in /etc/diskdoctor/datasheets.d: cloud: [{provider: "+where.Provider+", instance: <hostname>, instance_types: [<type>], source: ...}]"))
			return
		}
	}
}

// gcpDiskName is a GCP Persistent Disk's device name, from the
// /dev/disk/by-id/google-<name> link google-guest-configs'
// 65-gce-disk-naming.rules makes of its serial (google-local-* are local
// SSDs); "" for another disk or a name that is not a GCE device name
// (lowercase letters, digits and hyphens).
var gcpPartLink = regexp.MustCompile(`-part[0-9]+$`)

func gcpDiskName(d *block.Device, kind string) (string, Evidence) {
	if kind != diskGCPPD {
		return "", Evidence{}
	}
	var links []string
	if d.Udev != nil {
		links = d.Udev.Links
	}
	links = append(links, d.ByID...)
	for _, l := range links {
		name, ok := strings.CutPrefix(path.Base(l), "google-")
		if !ok || name == "" || strings.HasPrefix(name, "local-") || gcpPartLink.MatchString(name) || len(name) > 63 ||
			strings.ContainsFunc(name, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') }) {
			continue
		}
		return name, Evidence{"/dev/disk/by-id/google-" + name, d.Name}
	}
	return "", Evidence{}
}

// cloudDiskKind tells a cloud's disk by the model its virtual controller
// reports, or by the links the cloud's udev rules make: EBS "Amazon
// Elastic Block Store" and instance store "Amazon EC2 NVMe Instance
// Storage" (AWS's "Amazon EBS and NVMe" page), GCP "PersistentDisk" or
// "nvme_card-pd" and local SSD "EphemeralDisk" or "nvme_card" (google-
// guest-configs' 65-gce-disk-naming.rules, google-local-ssd-N and
// google-local-nvme-ssd-N links), Azure's /dev/disk/azure/{root,os,
// resource,scsi1/lunN,data/by-lun/N,local/...} links (WALinuxAgent's
// 66-azure-storage.rules, azure-vm-utils' 80-azure-disk.rules) and its NVMe
// models "Microsoft NVMe Direct Disk" (local, temporary) and "MSFT NVMe
// Accelerator" (managed).
func cloudDiskKind(d *block.Device, provider string) (string, []Evidence) {
	modelEv := []Evidence{{"/sys/block/" + d.Name, "model " + d.Model}}
	if d.Files["model"] != "" {
		modelEv = []Evidence{{d.Files["model"], d.Model}}
	}
	var links []string
	if d.Udev != nil {
		links = d.Udev.Links
	}
	for _, l := range d.ByID {
		links = append(links, strings.TrimPrefix(l, "/dev/"))
	}
	linkEv := func(l string) []Evidence { return []Evidence{{"/dev/" + l, d.Name}} }
	for _, l := range links {
		switch {
		case l == "disk/azure/resource" || strings.HasPrefix(l, "disk/azure/local/"):
			return diskAzureTemp, linkEv(l)
		case l == "disk/azure/root" || l == "disk/azure/os" || strings.HasPrefix(l, "disk/azure/scsi1/lun") || strings.HasPrefix(l, "disk/azure/data/"):
			return diskAzureManaged, linkEv(l)
		case strings.HasPrefix(path.Base(l), "google-local-ssd") || strings.HasPrefix(path.Base(l), "google-local-nvme-ssd"):
			return diskGCPLocal, linkEv(l)
		}
	}
	switch d.Hypervisor {
	case "Amazon EBS":
		return diskEBS, modelOr(modelEv, d)
	case "Amazon EC2 instance store":
		return diskInstanceStore, modelOr(modelEv, d)
	case "Google Persistent Disk":
		return diskGCPPD, modelOr(modelEv, d)
	case "Google local SSD":
		return diskGCPLocal, modelOr(modelEv, d)
	case "Azure local NVMe":
		return diskAzureTemp, modelOr(modelEv, d)
	case "Azure managed disk (NVMe)":
		return diskAzureManaged, modelOr(modelEv, d)
	case "Hyper-V":
		if provider == "Azure" {
			return diskAzure, modelOr(modelEv, d)
		}
	}
	return "", nil
}

// scratchMount is where the clouds' own tools put an ephemeral disk:
// cloud-init's default mount of AWS's ephemeral0 and Azure's resource
// disk (/mnt), WALinuxAgent's ResourceDisk.MountPoint (/mnt/resource),
// Google's guide for local SSDs (/mnt/disks/<name>).
func scratchMount(mp string) bool {
	return mp == "/mnt" || strings.HasPrefix(mp, "/mnt/")
}

// dataFSTypes are the signatures of a disk that is part of something
// larger: a pool, an array, a volume group, a multi-device filesystem.
var dataFSTypes = map[string]string{"zfs_member": "ZFS pool member", "linux_raid_member": "md array member", "LVM2_member": "LVM physical volume", "btrfs": "btrfs filesystem"}

// ephemeralHolds lists what an ephemeral disk holds that a stop or a
// host failure would lose beyond scratch data: a pool, array or volume
// group member, a btrfs filesystem, a device stacked on it, a filesystem
// mounted outside the scratch mount.
func ephemeralHolds(d *block.Device, byDevNo map[string][]mount.Mount) ([]string, []Evidence) {
	var out []string
	var ev []Evidence
	add := func(what, src, val string) {
		out = append(out, what)
		ev = append(ev, Evidence{src, val})
	}
	check := func(name, devNo, fsType string, holders []string) {
		if what, ok := dataFSTypes[fsType]; ok {
			add(name+": "+what, "/dev/"+name, "ID_FS_TYPE="+fsType)
		}
		if len(holders) > 0 {
			add(name+": held by "+strings.Join(holders, ", "), "/sys/class/block/"+name+"/holders", strings.Join(holders, " "))
		}
		for _, m := range byDevNo[devNo] {
			if !scratchMount(m.MountPoint) {
				add(name+": "+m.FSType+" mounted at "+m.MountPoint, "/proc/self/mountinfo", m.Source+" "+m.MountPoint)
			}
		}
	}
	check(d.Name, d.DevNo, d.Udev.Prop("ID_FS_TYPE"), d.Holders)
	for _, p := range d.Partitions {
		check(p.Name, p.DevNo, p.FSType, p.Holders)
	}
	return out, ev
}

// modelOr is the model's evidence, or what else named the disk (a PCI ID).
func modelOr(ev []Evidence, d *block.Device) []Evidence {
	if d.Model != "" {
		return ev
	}
	return []Evidence{{"/sys/block/" + d.Name, d.HypervisorWhy}}
}

// ebsVolumeID is the EBS volume ID the NVMe serial carries without its
// dash ("vol0f53eccc69bc1e40e" is vol-0f53eccc69bc1e40e, as ebsnvme-id of
// amazon-ec2-utils prints it); "" for another disk.
func ebsVolumeID(d *block.Device, kind string) string {
	if kind != diskEBS {
		return ""
	}
	s := strings.TrimSpace(d.Serial)
	if rest, ok := strings.CutPrefix(s, "vol"); ok && !strings.HasPrefix(rest, "-") && rest != "" && !strings.ContainsFunc(rest, func(r rune) bool {
		return !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f')
	}) {
		return "vol-" + rest
	}
	return ""
}

// setNVMeTimeout sets nvme_io_timeout_ms: the queue's own timeout where
// the kernel shows it (the value a request gets, blk_mq_start_request),
// else the module parameter's seconds; nil when neither was read.
func setNVMeTimeout(o *Observation, d *block.Device, t *cloud.NVMeTimeouts) {
	if t != nil {
		if q := t.Queue[d.Name]; q != nil {
			o.Set("nvme_io_timeout_ms", int64(q.Value), Evidence{q.File, strconv.FormatUint(q.Value, 10)})
			return
		}
		if m := t.Module; m != nil {
			o.Set("nvme_io_timeout_ms", int64(m.Value)*1000, Evidence{m.File, strconv.FormatUint(m.Value, 10) + " (seconds)"})
			return
		}
	}
	o.Set("nvme_io_timeout_ms", nil)
}
