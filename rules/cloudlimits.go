package rules

import (
	_ "embed"
	"fmt"
	"slices"
	"strings"

	"github.com/diskdoctor/diskdoctor/checks"

	"go.yaml.in/yaml/v3"
)

//go:embed cloud.yaml
var embeddedCloud []byte

// CloudLimit is a cloud's documented cap on a volume type: the IOPS and
// throughput a volume of that type delivers at most (its baseline where
// it bursts above it). A site's entry names one of its volumes (Volume,
// the EBS volume ID the guest reads from the NVMe serial) and its type,
// or gives that volume's own provisioned figures.
//
// An entry with InstanceTypes is the cap of those instance types (AWS
// EBS-optimized bandwidth, Azure VM sizes' uncached disk limits) on all
// their volumes together: IOPS and ThroughputMBs are what the instance
// sustains, MaxIOPS and MaxThroughputMBs what it reaches for a while on a
// burst balance. A site's entry naming an Instance (its hostname) gives
// that machine's type where the guest cannot see it (Azure, GCP).
type CloudLimit struct {
	Provider      string   `yaml:"provider"`
	VolumeType    string   `yaml:"volume_type,omitempty"`
	Volume        string   `yaml:"volume,omitempty"`
	InstanceTypes []string `yaml:"instance_types,omitempty,flow"`
	Instance      string   `yaml:"instance,omitempty"`
	IOPS          float64  `yaml:"iops,omitempty"`
	ThroughputMBs float64  `yaml:"throughput_mbs,omitempty"`
	// MaxIOPS and MaxThroughputMBs: an instance type's burst maximum.
	MaxIOPS          float64 `yaml:"max_iops,omitempty"`
	MaxThroughputMBs float64 `yaml:"max_throughput_mbs,omitempty"`
	// IOPSPerGiB and MBsPerGiB scale a volume type's cap with the
	// volume's size (GCP Persistent Disk); IOPS and ThroughputMBs are
	// then the most one instance gets from the type.
	IOPSPerGiB float64 `yaml:"iops_per_gib,omitempty"`
	MBsPerGiB  float64 `yaml:"mbs_per_gib,omitempty"`
	// Burst says how the volume exceeds its baseline for a while, and
	// where the console shows the balance (read-only advice).
	Burst  string `yaml:"burst,omitempty"`
	Source string `yaml:"source"`
}

// finishCloud checks each entry: a provider, a volume type and a source
// are required, and a shipped type needs a figure.
func finishCloud(ls []*CloudLimit) error {
	for i, l := range ls {
		what := fmt.Sprintf("cloud entry %d (%s %s%s%s%s)", i+1, l.Provider, l.VolumeType, l.Volume, strings.Join(l.InstanceTypes, " "), l.Instance)
		instance := len(l.InstanceTypes) > 0
		switch {
		case strings.TrimSpace(l.Source) == "":
			return fmt.Errorf("%s: source is required: the public page (or the site's record) each figure comes from", what)
		case l.Provider == "":
			return fmt.Errorf("%s: provider is required", what)
		case instance == (l.VolumeType != ""):
			return fmt.Errorf("%s: an entry names a volume_type or instance_types, one of them", what)
		case l.Instance != "" && len(l.InstanceTypes) != 1:
			return fmt.Errorf("%s: an entry naming an instance gives its one instance type", what)
		case l.Volume != "" && instance:
			return fmt.Errorf("%s: a volume has a volume_type, not instance_types", what)
		case l.Volume == "" && l.Instance == "" && l.IOPS <= 0 && l.ThroughputMBs <= 0 && l.IOPSPerGiB <= 0 && l.MBsPerGiB <= 0:
			return fmt.Errorf("%s: a volume or instance type needs iops or throughput_mbs", what)
		case l.IOPS < 0 || l.ThroughputMBs < 0 || l.MaxIOPS < 0 || l.MaxThroughputMBs < 0 || l.IOPSPerGiB < 0 || l.MBsPerGiB < 0:
			return fmt.Errorf("%s: negative figure", what)
		}
	}
	return nil
}

func parseCloud(b []byte) ([]*CloudLimit, error) {
	var t struct {
		Cloud []*CloudLimit `yaml:"cloud"`
	}
	if err := yaml.Unmarshal(b, &t); err != nil {
		return nil, err
	}
	return t.Cloud, finishCloud(t.Cloud)
}

// LookupCloud is the cap of a cloud volume: a site's entry naming the
// volume, with the figures it gives or its type's; nil when no entry
// names the volume (the guest cannot see a volume's type by itself). A
// type whose cap scales with the size (GCP) needs sizeBytes; without it
// only the type's own ceiling is known, and that is not the volume's.
func (ds *Datasheets) LookupCloud(provider, volume string, sizeBytes float64) *CloudLimit {
	if ds == nil || volume == "" {
		return nil
	}
	for _, l := range ds.Cloud {
		if l.Volume != volume || !strings.EqualFold(l.Provider, provider) {
			continue
		}
		out := *l
		if out.IOPS == 0 && out.ThroughputMBs == 0 {
			if t := ds.cloudType(provider, l.VolumeType); t != nil {
				out.IOPS, out.ThroughputMBs, out.Burst = t.IOPS, t.ThroughputMBs, t.Burst
				out.IOPSPerGiB, out.MBsPerGiB = t.IOPSPerGiB, t.MBsPerGiB
				out.Source = l.Source + "; " + t.Source
			}
		}
		if out.IOPSPerGiB > 0 || out.MBsPerGiB > 0 {
			if sizeBytes <= 0 {
				return nil
			}
			gib := sizeBytes / (1 << 30)
			out.IOPS = scaled(out.IOPSPerGiB, gib, out.IOPS)
			out.ThroughputMBs = scaled(out.MBsPerGiB, gib, out.ThroughputMBs)
		}
		if out.IOPS == 0 && out.ThroughputMBs == 0 {
			return nil
		}
		return &out
	}
	return nil
}

// scaled is perGiB × gib, at most ceiling (when there is one); 0 when
// the type does not scale that figure.
func scaled(perGiB, gib, ceiling float64) float64 {
	if perGiB <= 0 {
		return 0
	}
	v := perGiB * gib
	if ceiling > 0 && v > ceiling {
		v = ceiling
	}
	return v
}

// cloudType is the provider's volume type entry (the first: a site's
// goes before the shipped one).
func (ds *Datasheets) cloudType(provider, volumeType string) *CloudLimit {
	for _, t := range ds.Cloud {
		if t.Volume == "" && len(t.InstanceTypes) == 0 && strings.EqualFold(t.Provider, provider) && t.VolumeType == volumeType {
			return t
		}
	}
	return nil
}

// LookupInstance is the cap of an instance type on all its volumes
// together; nil when no entry names the type. A site's entry for this
// machine (Instance, its hostname) gives the type where machineType is
// "" (the guest does not show it).
func (ds *Datasheets) LookupInstance(provider, machineType, hostname string) *CloudLimit {
	if ds == nil || provider == "" {
		return nil
	}
	var site *CloudLimit
	if machineType == "" && hostname != "" {
		for _, l := range ds.Cloud {
			if l.Instance == hostname && strings.EqualFold(l.Provider, provider) {
				site, machineType = l, l.InstanceTypes[0]
				break
			}
		}
	}
	if machineType == "" {
		return nil
	}
	for _, l := range ds.Cloud {
		if l.Instance != "" || !strings.EqualFold(l.Provider, provider) || !slices.Contains(l.InstanceTypes, machineType) {
			continue
		}
		if l.IOPS == 0 && l.ThroughputMBs == 0 {
			continue
		}
		out := *l
		out.InstanceTypes = []string{machineType}
		if site != nil {
			out.Source = site.Source + "; " + l.Source
		}
		return &out
	}
	return nil
}

// cloudCaps gives a cloud disk the cap of its volume from the cloud
// table (cloud_cap_*: nil when no entry names the volume); other disks
// get nothing.
func (e *Engine) cloudCaps(s *subject, provider string) {
	if kind, _ := s.facts["cloud_disk"].(string); kind == "" {
		return
	}
	keys := []string{"cloud_cap_iops", "cloud_cap_mbs", "cloud_cap_volume_type", "cloud_cap_burst", "cloud_cap_source"}
	for _, k := range keys {
		s.facts[k] = nil
	}
	size, _ := toFloat(s.facts["size_bytes"])
	l := e.Datasheets.LookupCloud(provider, str(s.facts["cloud_volume_id"]), size)
	if l == nil {
		return
	}
	if l.IOPS > 0 {
		s.facts["cloud_cap_iops"] = l.IOPS
	}
	if l.ThroughputMBs > 0 {
		s.facts["cloud_cap_mbs"] = l.ThroughputMBs
	}
	s.facts["cloud_cap_volume_type"] = l.VolumeType
	s.facts["cloud_cap_burst"] = l.Burst
	s.facts["cloud_cap_source"] = l.Source
}

// instanceVolumeKinds are the cloud disks an instance's own cap covers:
// the network volumes (EBS, Azure managed disks, GCP Persistent Disk). An
// instance-store disk, the Azure temporary disk and a GCP local SSD have
// limits of their own; a Msft Virtual Disk not told apart may be the
// temporary disk and is left out rather than counted twice.
var instanceVolumeKinds = map[string]bool{"ebs": true, "azure-managed": true, "gcp-pd": true}

// instanceCaps gives the host the cap of its instance type on all its
// volumes together and what its volumes did in the window
// (cloud_instance_*): the sums are nil without a window, the caps nil
// where no entry names the type (Azure and GCP do not show it in DMI: a
// site names it in datasheets.d).
func (e *Engine) instanceCaps(host *subject, subs map[string]*subject, order []string) {
	keys := []string{"cloud_instance_type", "cloud_instance_cap_iops", "cloud_instance_cap_mbs", "cloud_instance_cap_max_iops",
		"cloud_instance_cap_max_mbs", "cloud_instance_cap_burst", "cloud_instance_cap_source", "cloud_instance_iops", "cloud_instance_mbs", "cloud_instance_at_cap"}
	var iops, mbs float64
	var volumes, sampled int
	for _, k := range order {
		s := subs[k]
		if s.kind != checks.KindDevice || !instanceVolumeKinds[str(s.facts["cloud_disk"])] {
			continue
		}
		volumes++
		r, okR := toFloat(s.facts["sample_r_s"])
		w, okW := toFloat(s.facts["sample_w_s"])
		rb, _ := toFloat(s.facts["sample_r_mbs"])
		wb, _ := toFloat(s.facts["sample_w_mbs"])
		if okR && okW {
			sampled++
			iops += r + w
			mbs += rb + wb
		}
	}
	if volumes == 0 {
		return
	}
	for _, k := range keys {
		host.facts[k] = nil
	}
	if sampled > 0 {
		// The volumes sampled: a sum at the cap is the cap reached even
		// if a volume was not sampled.
		host.facts["cloud_instance_iops"] = iops
		host.facts["cloud_instance_mbs"] = mbs
	}
	l := e.Datasheets.LookupInstance(str(host.facts["provider"]), str(host.facts["machine_type"]), str(host.facts["hostname"]))
	if l == nil {
		return
	}
	host.facts["cloud_instance_type"] = l.InstanceTypes[0]
	set := func(k string, v float64) {
		if v > 0 {
			host.facts[k] = v
		}
	}
	set("cloud_instance_cap_iops", l.IOPS)
	set("cloud_instance_cap_mbs", l.ThroughputMBs)
	set("cloud_instance_cap_max_iops", l.MaxIOPS)
	set("cloud_instance_cap_max_mbs", l.MaxThroughputMBs)
	host.facts["cloud_instance_cap_burst"] = l.Burst
	host.facts["cloud_instance_cap_source"] = l.Source
	if sampled > 0 {
		// 90 % of what the type sustains: the point from which its
		// volumes queue once a burst balance is spent.
		host.facts["cloud_instance_at_cap"] = l.IOPS > 0 && iops >= 0.9*l.IOPS || l.ThroughputMBs > 0 && mbs >= 0.9*l.ThroughputMBs
	}
}
