package rules

import (
	_ "embed"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

//go:embed cloud.yaml
var embeddedCloud []byte

// CloudLimit is a cloud's documented cap on a volume type: the IOPS and
// throughput a volume of that type delivers at most (its baseline where
// it bursts above it). A site's entry names one of its volumes (Volume,
// the EBS volume ID the guest reads from the NVMe serial) and its type,
// or gives that volume's own provisioned figures.
type CloudLimit struct {
	Provider      string  `yaml:"provider"`
	VolumeType    string  `yaml:"volume_type"`
	Volume        string  `yaml:"volume,omitempty"`
	IOPS          float64 `yaml:"iops,omitempty"`
	ThroughputMBs float64 `yaml:"throughput_mbs,omitempty"`
	// Burst says how the volume exceeds its baseline for a while, and
	// where the console shows the balance (read-only advice).
	Burst  string `yaml:"burst,omitempty"`
	Source string `yaml:"source"`
}

// finishCloud checks each entry: a provider, a volume type and a source
// are required, and a shipped type needs a figure.
func finishCloud(ls []*CloudLimit) error {
	for i, l := range ls {
		what := fmt.Sprintf("cloud entry %d (%s %s%s)", i+1, l.Provider, l.VolumeType, l.Volume)
		switch {
		case strings.TrimSpace(l.Source) == "":
			return fmt.Errorf("%s: source is required: the public page (or the site's record) each figure comes from", what)
		case l.Provider == "" || l.VolumeType == "":
			return fmt.Errorf("%s: provider and volume_type are required", what)
		case l.Volume == "" && l.IOPS <= 0 && l.ThroughputMBs <= 0:
			return fmt.Errorf("%s: a volume type needs iops or throughput_mbs", what)
		case l.IOPS < 0 || l.ThroughputMBs < 0:
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
// names the volume (the guest cannot see a volume's type by itself).
func (ds *Datasheets) LookupCloud(provider, volume string) *CloudLimit {
	if ds == nil || volume == "" {
		return nil
	}
	for _, l := range ds.Cloud {
		if l.Volume != volume || !strings.EqualFold(l.Provider, provider) {
			continue
		}
		out := *l
		if out.IOPS == 0 && out.ThroughputMBs == 0 {
			for _, t := range ds.Cloud {
				if t.Volume == "" && strings.EqualFold(t.Provider, provider) && t.VolumeType == l.VolumeType {
					out.IOPS, out.ThroughputMBs, out.Burst = t.IOPS, t.ThroughputMBs, t.Burst
					out.Source = l.Source + "; " + t.Source
					break
				}
			}
		}
		if out.IOPS == 0 && out.ThroughputMBs == 0 {
			return nil
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
	l := e.Datasheets.LookupCloud(provider, str(s.facts["cloud_volume_id"]))
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
