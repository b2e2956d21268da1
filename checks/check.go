// Package checks turns probe data into observations: typed facts about a
// device, a pool or the host, each with the evidence it was read from.
// Checks observe; they do not judge (that is rules/).
//
// Adding a check (one check per file):
//   - checks/<name>.go, the name without dashes (write-cache: writecache.go):
//     init() { Register(Check{Name, Description, Run}) }, the name appended
//     to runOrder, the Run and the helpers only it uses (a large check's
//     parts in <name><part>.go: zfslatency.go). It reads the machine through
//     probes/<source>: env's shared probes (shared.go), Probe or RunCommand
//     (probe.go) for its own; helpers.go, controllers.go are shared.
//   - One NewObservation(name, kind, subject) per subject: KindDevice (the
//     kernel name), KindPool (pool or array) or KindHost ("host").
//   - Facts snake_case with the check's prefix (wc_, zfs_), set in a fixed
//     order; one a rule reads is nil when unknown, never left out. Each is
//     declared once in facts_table.go (type, unit, meaning, this check): the
//     corpus and fixture tests fail one that is not, and the rule loader
//     refuses a condition that reads one (docs/facts.md, go test ./rules
//     -update).
//   - Evidence{Source: file, command or "dmesg line N", Value: the raw text}
//     on the fact read from it; a derived fact has none.
//   - What cannot be read: env.Skip(probe, subject, err), withHint(err, hint)
//     where the check knows the fix better than hints.go.
//   - Tests: <name>_test.go; a fixture (docs/fixtures.md) with expect.yaml,
//     its goldens rewritten by go test ./doctor ./report -update.
package checks

import (
	"context"
	"slices"
)

// Check is one pluggable module.
type Check struct {
	Name        string
	Description string
	Run         func(ctx context.Context, env *Env) []*Observation
}

// runOrder is the order the checks are listed in (diskdoctor checks,
// --disable-check) and their observations reach rules/. It is not the
// order of the files' init functions (the file names' order): rules merge a
// subject's observations in this order (a fact has one check that sets it:
// facts_table.go). A check not named here comes after these, in the order it
// registered (a test's own check).
var runOrder = []string{
	"pcie-link", "cpu-power", "pressure", "scheduler", "inventory", "controller", "platform",
	"kernel-log", "ahci-mode", "link-power", "usb-link", "hba", "sas-link", "nvme-power", "nvme-hmb", "nvme-lbaf", "queue", "md", "lvm", "multipath", "filesystems", "sample", "smart", "spindown", "stack", "trim", "write-cache", "zfs", "inodes", "nfs", "btrfs",
	"fs-errors", "lazyinit", "cloud", "dmcrypt", "bcache", "hdparm-apm", "hdparm-power",
}

var registry []Check

// Register adds a check in its place in runOrder; called from init() of
// each check's file.
func Register(c Check) {
	for _, r := range registry {
		if r.Name == c.Name {
			panic("checks: duplicate check " + c.Name)
		}
	}
	// After every check that comes before it or with it, so that checks of
	// the same rank keep their registration order.
	rank := runRank(c.Name)
	i := len(registry)
	for i > 0 && runRank(registry[i-1].Name) > rank {
		i--
	}
	registry = slices.Insert(registry, i, c)
}

// runRank is a check's place in runOrder, len(runOrder) when not named.
func runRank(name string) int {
	if i := slices.Index(runOrder, name); i >= 0 {
		return i
	}
	return len(runOrder)
}

// All returns the registered checks in run order.
func All() []Check { return append([]Check(nil), registry...) }
