package system

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"

	"github.com/diskdoctor/diskdoctor/machine"
	"github.com/jaypipes/ghw"
	"github.com/jaypipes/ghw/pkg/baseboard"
	"github.com/jaypipes/ghw/pkg/bios"
	"github.com/jaypipes/ghw/pkg/chassis"
	"github.com/jaypipes/ghw/pkg/option"
	"github.com/jaypipes/ghw/pkg/product"
	"github.com/prometheus/procfs"
	"github.com/prometheus/procfs/sysfs"
)

// Platform is the machine's identity: DMI (or the device tree on boards
// without it), kernel and distribution.
type Platform struct {
	Vendor, Product, ProductVersion, Board string
	BIOSVendor, BIOSVersion, BIOSDate      string
	ChassisType                            int
	Chassis                                string // "Rack Mount Chassis", "Tower"
	Kernel, Distro, Hostname               string
	// ChassisAssetTag and BoardVendor name a cloud where the system
	// fields do not (Azure's asset tag); ProductVersion carries QEMU's
	// machine type.
	ChassisAssetTag, BoardVendor string
	// CPUHypervisor is the "hypervisor" flag of /proc/cpuinfo: x86 sets
	// it when CPUID leaf 1 ECX bit 31 says a hypervisor runs the CPU
	// (arch/x86/include/asm/cpufeatures.h X86_FEATURE_HYPERVISOR); nil
	// where cpuinfo has no x86 flags line (arm64) or was not read.
	CPUHypervisor *bool
	// ACPIOEM is the OEM ID of the ACPI tables (the FADT's header, bytes
	// 10-15: ACPI specification, System Description Table Header), which
	// a hypervisor that builds its own tables names itself in (FIRECK,
	// CLOUDH); "" where the table is absent or unreadable (root only).
	ACPIOEM string
	Files   map[string]string
}

// ReadPlatform reads the machine's identity through ghw (DMI under
// /sys/class/dmi/id, with its device-tree fallback), and the kernel and
// distribution; absent values stay empty.
func ReadPlatform(ctx context.Context, h *machine.Host) (*Platform, error) {
	p := &Platform{Files: map[string]string{}}
	// ghw reads DMI, or the device tree on boards without it; a recorded
	// tree whose files lead out of its root is not given to it.
	if err := h.Uses("/sys/class/dmi/id", "/sys/class/dmi/id/*", "/sys/firmware/devicetree/base/*", "/proc/device-tree/*"); err == nil {
		readDMI(h, p)
	}
	if b, err := h.ReadFile(ctx, "/proc/cpuinfo"); err == nil {
		p.CPUHypervisor = ParseCPUHypervisor(b)
	}
	if b, err := h.ReadFile(ctx, ACPIFADTPath); err == nil {
		if p.ACPIOEM = ParseACPIOEM(b); p.ACPIOEM != "" {
			p.Files["acpi_oem"] = ACPIFADTPath
		}
	}
	p.Kernel, _ = h.ReadString(ctx, "/proc/sys/kernel/osrelease")
	p.Hostname, _ = h.ReadString(ctx, "/proc/sys/kernel/hostname")
	if p.Hostname == "" {
		p.Hostname, _ = h.ReadString(ctx, "/etc/hostname")
	}
	if b, err := h.ReadFile(ctx, "/etc/os-release"); err == nil {
		p.Distro = ParseOSRelease(b)
	}
	if err := ctx.Err(); err != nil {
		return p, machine.CtxErr(err)
	}
	return p, nil
}

func readDMI(h *machine.Host, p *Platform) {
	// ghw warns on stderr about every absent DMI file (VMs have few):
	// WithDisableWarnings raises its log level to errors for this call
	// (ghw's internal/config/log.go), where GHW_DISABLE_WARNINGS would
	// change the environment of the whole process.
	opts := []any{option.WithChroot(h.Root()), option.WithDisableTools(), option.WithNullAlerter(), ghw.WithDisableWarnings()}
	set := func(dst *string, v, attr string) {
		if v = known(v); v != "" {
			*dst = v
			p.Files[attr] = "/sys/class/dmi/id/" + attr
		}
	}
	if prod, err := product.New(opts...); err == nil {
		set(&p.Vendor, prod.Vendor, "sys_vendor")
		set(&p.Product, prod.Name, "product_name")
		set(&p.ProductVersion, prod.Version, "product_version")
	}
	var boardVendor string
	if bb, err := baseboard.New(opts...); err == nil {
		set(&p.Board, bb.Product, "board_name")
		set(&boardVendor, bb.Vendor, "board_vendor")
		p.BoardVendor = boardVendor
	}
	if b, err := bios.New(opts...); err == nil {
		set(&p.BIOSVendor, b.Vendor, "bios_vendor")
		set(&p.BIOSVersion, b.Version, "bios_version")
		set(&p.BIOSDate, b.Date, "bios_date")
	}
	if c, err := chassis.New(opts...); err == nil {
		p.ChassisType, _ = strconv.Atoi(known(c.Type))
		p.Chassis = known(c.TypeDescription)
		set(&p.ChassisAssetTag, c.AssetTag, "chassis_asset_tag")
	}
	// Desktop boards leave the system fields at placeholders; the board
	// fields then name the machine.
	if dmiPlaceholder(p.Vendor) && dmiPlaceholder(p.Product) && boardVendor != "" && p.Board != "" {
		p.Vendor, p.Product = boardVendor, p.Board
		p.Files["sys_vendor"], p.Files["product_name"] = p.Files["board_vendor"], p.Files["board_name"]
	}
}

// ACPIFADTPath is the Fixed ACPI Description Table as the kernel exposes
// it (drivers/acpi/sysfs.c, mode 0400).
const ACPIFADTPath = "/sys/firmware/acpi/tables/FACP"

// ParseACPIOEM returns the OEM ID of an ACPI table header: six bytes at
// offset 10, space or NUL padded; "" unless they are printable ASCII.
func ParseACPIOEM(b []byte) string {
	if len(b) < 16 {
		return ""
	}
	id := strings.TrimRight(string(b[10:16]), " \x00")
	for _, r := range id {
		if r < 0x21 || r > 0x7e {
			return ""
		}
	}
	return id
}

// ParseCPUHypervisor reads the first x86 "flags" line of /proc/cpuinfo:
// whether it lists "hypervisor"; nil when there is no such line.
func ParseCPUHypervisor(b []byte) *bool {
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 64<<10)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok || strings.TrimSpace(k) != "flags" {
			continue
		}
		has := false
		for _, f := range strings.Fields(v) {
			if f == "hypervisor" {
				has = true
				break
			}
		}
		return &has
	}
	return nil
}

// known maps ghw's "unknown" (an absent or unreadable file) to "".
func known(s string) string {
	s = strings.TrimSpace(s)
	if s == "unknown" {
		return ""
	}
	return s
}

// dmiPlaceholder reports the filler strings firmware leaves in DMI fields.
func dmiPlaceholder(s string) bool {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "system manufacturer", "system product name", "to be filled by o.e.m.", "default string", "o.e.m.", "not applicable", "not specified":
		return true
	}
	return false
}

// ParseOSRelease returns PRETTY_NAME (or NAME VERSION) of an os-release file.
func ParseOSRelease(b []byte) string {
	vals := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		k, v, ok := strings.Cut(strings.TrimSpace(sc.Text()), "=")
		if !ok || strings.HasPrefix(k, "#") {
			continue
		}
		if uq, err := strconv.Unquote(v); err == nil {
			v = uq
		} else {
			v = strings.Trim(v, `"'`)
		}
		vals[k] = v
	}
	if v := vals["PRETTY_NAME"]; v != "" {
		return v
	}
	return strings.TrimSpace(vals["NAME"] + " " + vals["VERSION"])
}

// CPUPower is the frequency scaling state of every CPU.
type CPUPower struct {
	CPUs         []sysfs.SystemCPUCpufreqStats
	PstateStatus string // intel_pstate: active, passive, off; "" when absent
	CmdLine      []string
	MHz          []float64 // "cpu MHz" of /proc/cpuinfo
	ModelName    string
}

// ReadCPUPower reads cpufreq through procfs' sysfs reader. A machine without
// cpufreq (most VMs) returns ErrNotAvailable, with CmdLine and MHz filled.
func ReadCPUPower(ctx context.Context, h *machine.Host) (*CPUPower, error) {
	c := &CPUPower{}
	if err := h.Uses("/proc/cmdline", "/proc/cpuinfo", "/sys/devices/system/cpu/*", "/sys/devices/system/cpu/cpu*/cpufreq",
		"/sys/devices/system/cpu/cpu*/cpufreq/*", "/sys/devices/system/cpu/cpufreq/policy*/*"); err != nil {
		return c, err
	}
	pfs, err := procfs.NewFS(h.Path("/proc"))
	if err == nil {
		c.CmdLine, _ = pfs.CmdLine()
		if infos, err := cpuInfo(pfs); err == nil {
			for _, i := range infos {
				c.MHz = append(c.MHz, i.CPUMHz)
				c.ModelName = i.ModelName
			}
		}
	}
	c.PstateStatus, _ = h.ReadString(ctx, "/sys/devices/system/cpu/intel_pstate/status")
	sfs, err := sysfs.NewFS(h.Path("/sys"))
	if err != nil {
		return c, fmt.Errorf("/sys: %w", machine.ErrNotAvailable)
	}
	stats, err := sfs.SystemCpufreq()
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return c, fmt.Errorf("/sys/devices/system/cpu/cpu*/cpufreq: %w", machine.ErrNotAvailable)
		}
		return c, fmt.Errorf("/sys/devices/system/cpu/cpu*/cpufreq: %w", err)
	}
	for _, s := range stats {
		// procfs leaves a zero entry for a CPU without cpufreq.
		if s.Name != "" {
			c.CPUs = append(c.CPUs, s)
		}
	}
	if len(c.CPUs) == 0 {
		return c, fmt.Errorf("/sys/devices/system/cpu/cpu*/cpufreq: %w", machine.ErrNotAvailable)
	}
	return c, ctx.Err()
}

// Pressure is PSI for io, cpu and memory; nil where the kernel has none.
type Pressure struct {
	IO, CPU, Memory *procfs.PSIStats
}

// ReadPressure reads /proc/pressure/{io,cpu,memory}.
func ReadPressure(ctx context.Context, h *machine.Host) (*Pressure, error) {
	if err := h.Uses("/proc/pressure/*"); err != nil {
		return nil, err
	}
	pfs, err := procfs.NewFS(h.Path("/proc"))
	if err != nil {
		return nil, fmt.Errorf("/proc: %w", machine.ErrNotAvailable)
	}
	p := &Pressure{}
	var first error
	for _, r := range []struct {
		name string
		dst  **procfs.PSIStats
	}{{"io", &p.IO}, {"cpu", &p.CPU}, {"memory", &p.Memory}} {
		st, err := pfs.PSIStatsForResource(r.name)
		if err != nil {
			if first == nil {
				first = machine.FileErr("/proc/pressure/"+r.name, machine.UnwrapPathErr(err))
			}
			continue
		}
		*r.dst = &st
	}
	if p.IO == nil {
		return p, first
	}
	return p, ctx.Err()
}

// meminfoWellFormed refuses a /proc/meminfo with a line that is not
// "Name: value [kB]" before procfs parses it: procfs v0.19.2, the last
// release for Go 1.24 (go.mod's line), indexes a line's second field
// without checking that there is one, a panic on a recorded machine's
// hostile file (FuzzRecordedProcFiles); v0.20 checks it (meminfo.go,
// parseMemInfo) but needs Go 1.25. The kernel writes every line with a
// value (fs/proc/meminfo.c), so a live machine's file always passes.
func meminfoWellFormed(ctx context.Context, h *machine.Host) error {
	b, err := h.ReadFileLimit(ctx, "/proc/meminfo", maxMeminfoBytes)
	if err != nil {
		return err
	}
	for i, l := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		if n := len(strings.Fields(l)); n < 2 || n > 3 {
			return fmt.Errorf("/proc/meminfo: line %d is not \"Name: value [kB]\"", i+1)
		}
	}
	return nil
}

// maxMeminfoBytes bounds /proc/meminfo: the kernel's is about 1.5 KB.
const maxMeminfoBytes = 64 << 10

// MemTotalBytes reads MemTotal from /proc/meminfo.
func MemTotalBytes(ctx context.Context, h *machine.Host) (uint64, error) {
	if err := h.Uses("/proc/meminfo"); err != nil {
		return 0, err
	}
	if err := meminfoWellFormed(ctx, h); err != nil {
		return 0, err
	}
	pfs, err := procfs.NewFS(h.Path("/proc"))
	if err != nil {
		return 0, fmt.Errorf("/proc: %w", machine.ErrNotAvailable)
	}
	mi, err := pfs.Meminfo()
	if err != nil || mi.MemTotal == nil {
		return 0, machine.FileErr("/proc/meminfo", machine.UnwrapPathErr(err))
	}
	return *mi.MemTotal * 1024, ctx.Err()
}

// cpuInfo is procfs's CPUInfo made safe for a recorded root: procfs
// v0.19.2 (cpuinfo.go, parseCPUInfoX86) indexes the second field of a
// "processor" line split at ": " unchecked, and panics on "processor:0".
// A hostile recording's cpuinfo is then a parse error, not a crash.
func cpuInfo(fs procfs.FS) (infos []procfs.CPUInfo, err error) {
	defer func() {
		if r := recover(); r != nil {
			infos, err = nil, fmt.Errorf("/proc/cpuinfo: not parsable: %v", r)
		}
	}()
	return fs.CPUInfo()
}
