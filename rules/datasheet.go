package rules

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/diskdoctor/diskdoctor/machine"
)

//go:embed datasheets.yaml
var embeddedDatasheets []byte

// Datasheet is what a drive model (or a class of drives) is expected to do.
type Datasheet struct {
	Match          string  `yaml:"match,omitempty" json:"-"`
	Class          string  `yaml:"class" json:"class"`
	Name           string  `yaml:"name,omitempty" json:"-"`
	Vendor         string  `yaml:"vendor,omitempty" json:"vendor,omitempty"`
	Product        string  `yaml:"product,omitempty" json:"product"`
	Interface      string  `yaml:"interface" json:"interface"`
	PCIeGen        int     `yaml:"pcie_gen,omitempty" json:"pcie_gen,omitempty"`
	PCIeLanes      int     `yaml:"pcie_lanes,omitempty" json:"pcie_lanes,omitempty"`
	SeqReadMBs     float64 `yaml:"seq_read_mbs,omitempty" json:"seq_read_mbs,omitempty"`
	SeqWriteMBs    float64 `yaml:"seq_write_mbs,omitempty" json:"seq_write_mbs,omitempty"`
	RandReadIOPS   float64 `yaml:"rand_read_iops,omitempty" json:"rand_read_iops,omitempty"`
	RandWriteIOPS  float64 `yaml:"rand_write_iops,omitempty" json:"rand_write_iops,omitempty"`
	ReadLatencyUs  float64 `yaml:"read_latency_us,omitempty" json:"read_latency_us,omitempty"`
	WriteLatencyUs float64 `yaml:"write_latency_us,omitempty" json:"write_latency_us,omitempty"`
	VolatileCache  bool    `yaml:"volatile_cache" json:"volatile_cache"`
	PLP            bool    `yaml:"plp" json:"plp"`
	// SMR: the drive records with drive-managed shingled magnetic
	// recording (true), conventional recording (false, where the vendor
	// says so), or unknown (absent). Its source names the vendor's list.
	SMR *bool `yaml:"smr,omitempty" json:"smr,omitempty"`
	// A RAID controller's cache: its size and what protects it
	// ("flash": flash-backed, "battery", "optional": an energy pack is an
	// option, "none": the controller has no write cache).
	CacheMB    float64 `yaml:"cache_mb,omitempty" json:"cache_mb,omitempty"`
	EnergyPack string  `yaml:"energy_pack,omitempty" json:"energy_pack,omitempty"`
	Source     string  `yaml:"source" json:"source"`
	// ModelEntry is true when a model entry matched, false for a class default.
	ModelEntry bool `yaml:"-" json:"model_entry"`

	re *regexp.Regexp
	// insts is re's compiled size, counted against maxTableInsts.
	insts int
}

// Datasheets is the table: model entries (user entries first) and class
// defaults.
type Datasheets struct {
	Version string       `yaml:"version"`
	Classes []*Datasheet `yaml:"classes"`
	Models  []*Datasheet `yaml:"models"`
	// Controllers are RAID controller models, matched against the model
	// the controller's tool prints.
	Controllers []*Datasheet `yaml:"controllers"`
	// Firmware are the firmware advisories and quirks (rules/firmware.yaml;
	// a site's file may add its own under the same key).
	Firmware []*Advisory `yaml:"firmware"`
	// Cloud are the caps of cloud volume types (rules/cloud.yaml) and a
	// site's volumes named with their type (cloudlimits.go).
	Cloud []*CloudLimit `yaml:"cloud"`
	// Refused are the files not used because others could write them
	// (rules/trust.go), for the report's skipped entries.
	Refused refusedFiles `yaml:"-"`

	// cost is what the tables merged into this one hold (patterns.go).
	cost tableCost
}

// DatasheetsDir holds the administrator's own datasheet files (the Debian
// package's conffiles): every *.yaml in it, read in name order.
const DatasheetsDir = "/etc/diskdoctor/datasheets.d"

// LoadDatasheets parses the embedded table and, if given, a user's file
// whose models take precedence.
func LoadDatasheets(userFile string) (*Datasheets, error) {
	return LoadHostDatasheets(context.Background(), nil, userFile)
}

// LoadHostDatasheets is LoadDatasheets with the examined machine's
// DatasheetsDir added between the two: the recorded machine's files for a
// recorded machine, this machine's for the live one. A later file's models
// take precedence, so userFile (the command line) wins over the directory.
// host may be nil: no directory.
func LoadHostDatasheets(ctx context.Context, host *machine.Host, userFile string) (*Datasheets, error) {
	ds, err := parseDatasheets(embeddedDatasheets)
	if err != nil {
		return nil, fmt.Errorf("embedded datasheets: %w", err)
	}
	if ds.Firmware, err = parseFirmware(embeddedFirmware); err != nil {
		return nil, fmt.Errorf("embedded firmware table: %w", err)
	}
	if ds.Cloud, err = parseCloud(embeddedCloud); err != nil {
		return nil, fmt.Errorf("embedded cloud table: %w", err)
	}
	if err := ds.cost.charge(0, ds); err != nil {
		return nil, fmt.Errorf("embedded tables: %w", err)
	}
	if host != nil {
		for _, p := range host.Glob(DatasheetsDir + "/*.yaml") {
			// A recorded machine may be hostile: a datasheet file is a few
			// kilobytes, never worth reading gigabytes for.
			b, err := host.ReadTrusted(ctx, p, maxDatasheetsBytes)
			if ds.refused(err) {
				continue
			}
			if errors.Is(err, machine.ErrRefused) {
				return nil, fmt.Errorf("%s: refused, more than a datasheet file holds (%d bytes) or not a regular file: %w", p, maxDatasheetsBytes, err)
			}
			if err != nil {
				return nil, err
			}
			if isEmptyYAML(b) {
				continue // comments only, like the shipped template: adds nothing
			}
			if err := ds.add(b, p); err != nil {
				return nil, err
			}
		}
	}
	if userFile == "" {
		return ds, nil
	}
	b, err := machine.ReadTrustedFile(userFile, maxDatasheetsBytes, machine.InvokerOwners())
	if ds.refused(err) {
		return ds, nil
	}
	if err != nil {
		return nil, err
	}
	if err := ds.add(b, userFile); err != nil {
		return nil, fmt.Errorf("--datasheets %w", err)
	}
	return ds, nil
}

// isEmptyYAML: a document with nothing but comments and blank lines.
func isEmptyYAML(b []byte) bool {
	var n yaml.Node
	return yaml.Unmarshal(b, &n) == nil && len(n.Content) == 0
}

// add merges a user's file: its models go first, its classes replace the
// defaults of the same name.
func (ds *Datasheets) add(b []byte, name string) error {
	user, err := parseUserDatasheets(b)
	if errors.Is(err, errTooLarge) {
		return fmt.Errorf("%s: %w", name, err)
	}
	if err != nil {
		return fmt.Errorf("%s: not a datasheet table (see rules/datasheets.yaml): %w", name, err)
	}
	if err := ds.cost.charge(len(b), user); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	ds.Models = append(user.Models, ds.Models...)
	ds.Controllers = append(user.Controllers, ds.Controllers...)
	ds.Firmware = append(user.Firmware, ds.Firmware...)
	ds.Cloud = append(user.Cloud, ds.Cloud...)
	for _, c := range user.Classes {
		for i, old := range ds.Classes {
			if old.Class == c.Class {
				ds.Classes[i] = c
			}
		}
	}
	return nil
}

// maxDatasheetsBytes bounds a user's datasheet file: the embedded table of
// every model the project knows is a few tens of kB.
const maxDatasheetsBytes = 4 << 20

// parseUserDatasheets is parseDatasheets for a file a person gave: a field
// the table does not have is a typo or a different file (/etc/shadow parses
// as YAML too), and a table with no entry is not a table.
func parseUserDatasheets(b []byte) (*Datasheets, error) {
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	var ds Datasheets
	if err := dec.Decode(&ds); err != nil {
		return nil, err
	}
	if len(ds.Models) == 0 && len(ds.Classes) == 0 && len(ds.Controllers) == 0 && len(ds.Firmware) == 0 && len(ds.Cloud) == 0 {
		return nil, errors.New("no models, no classes, no firmware and no cloud entries")
	}
	if err := finishCloud(ds.Cloud); err != nil {
		return nil, err
	}
	return finishDatasheets(&ds)
}

func parseDatasheets(b []byte) (*Datasheets, error) {
	var ds Datasheets
	if err := yaml.Unmarshal(b, &ds); err != nil {
		return nil, err
	}
	return finishDatasheets(&ds)
}

// finishDatasheets checks each entry and compiles its model pattern.
func finishDatasheets(ds *Datasheets) (*Datasheets, error) {
	for i, m := range append(append([]*Datasheet(nil), ds.Models...), ds.Controllers...) {
		if m.Match == "" || m.Source == "" || m.Class == "" {
			return nil, fmt.Errorf("model entry %d (%s): match, class and source are required", i+1, m.Product)
		}
		re, n, err := compilePattern(m.Match)
		if err != nil {
			return nil, fmt.Errorf("model entry %d (%s): match: %w", i+1, m.Product, err)
		}
		m.re, m.insts = re, n
		m.ModelEntry = true
	}
	if err := finishAdvisories(ds.Firmware); err != nil {
		return nil, err
	}
	for _, c := range ds.Classes {
		if c.Product == "" {
			c.Product = c.Name + " (class default)"
		}
	}
	return ds, nil
}

var collapse = regexp.MustCompile(`[\s_]+`)

// NormalizeModel collapses whitespace and underscores (udev writes
// "WDC_WDS200T1R0A-68A4W0", the kernel pads with spaces).
func NormalizeModel(m string) string {
	return strings.TrimSpace(collapse.ReplaceAllString(m, " "))
}

// ClassUnknown is the class of a SATA, SAS or SCSI disk whose rotational
// flag is unknown: no class default applies to it.
const ClassUnknown = "unknown"

// DeviceClass names the class default for a device's transport,
// rotational flag and PCIe generation (deviceClass adds what the SCSI
// vendor and the RAID controller say).
func DeviceClass(transport string, rotational any, pcieMaxGTs any) string {
	rot, _ := rotational.(bool)
	switch transport {
	case "nvme":
		gts, _ := pcieMaxGTs.(float64)
		switch {
		case gts >= 32:
			return "nvme-gen5"
		case gts >= 16:
			return "nvme-gen4"
		}
		return "nvme-gen3"
	case "usb":
		return "usb"
	case "virtio", "virtual":
		return "virtual"
	case "mmc":
		return "mmc"
	case "pata":
		if rot {
			return "pata-hdd"
		}
		return "sata-ssd"
	case "sas":
		if rot {
			return "sas-hdd"
		}
		return "sas-ssd"
	case "iscsi", "fc":
		// A LUN of a storage array: it performs as the array behind the
		// network does, not as any one drive.
		return transport
	}
	if _, known := rotational.(bool); !known {
		// Neither an SSD's nor a hard disk's figures apply to a disk
		// whose queue/rotational was not read.
		return ClassUnknown
	}
	if rot {
		return "sata-hdd"
	}
	return "sata-ssd"
}

// Lookup finds the entry for a model, else the class default.
func (ds *Datasheets) Lookup(model, class string) *Datasheet {
	n := NormalizeModel(model)
	if n != "" {
		for _, m := range ds.Models {
			if m.re.MatchString(n) {
				return m
			}
		}
	}
	for _, c := range ds.Classes {
		if c.Class == class {
			return c
		}
	}
	return nil
}

// LookupController finds a RAID controller model's entry, nil when the
// table has none.
func (ds *Datasheets) LookupController(model string) *Datasheet {
	if n := NormalizeModel(model); n != "" {
		for _, c := range ds.Controllers {
			if c.re.MatchString(n) {
				return c
			}
		}
	}
	return nil
}

// asMap is the datasheet as the rule language sees it (ds.seq_write_mbs).
func (d *Datasheet) asMap() map[string]any {
	if d == nil {
		return map[string]any{"product": "", "source": "", "class": "", "volatile_cache": nil, "plp": nil, "smr": nil}
	}
	return map[string]any{
		"product": d.Product, "class": d.Class, "interface": d.Interface, "source": d.Source,
		"seq_read_mbs": d.SeqReadMBs, "seq_write_mbs": d.SeqWriteMBs,
		"rand_read_iops": d.RandReadIOPS, "rand_write_iops": d.RandWriteIOPS,
		"read_latency_us": d.ReadLatencyUs, "write_latency_us": d.WriteLatencyUs,
		"volatile_cache": d.VolatileCache, "plp": d.PLP, "model_entry": d.ModelEntry,
		"pcie_gen": d.PCIeGen, "pcie_lanes": d.PCIeLanes, "smr": optBool(d.SMR),
	}
}

// optBool is a tri-state datasheet flag as the rules see it: nil unknown.
func optBool(b *bool) any {
	if b == nil {
		return nil
	}
	return *b
}
