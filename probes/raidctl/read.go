package raidctl

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/diskdoctor/diskdoctor/machine"
)

// The programs of each family, in the order they are tried: the current
// name first, then the names older packages installed (HPE renamed
// hpacucli to hpssacli and then ssacli; Dell ships storcli as perccli).
var (
	smartArrayTools = []string{"ssacli", "hpssacli", "hpacucli"}
	storcliTools    = []string{"storcli64", "storcli", "perccli64", "perccli"}
	megacliTools    = []string{"MegaCli64", "MegaCli", "megacli"}
	arcconfTools    = []string{"arcconf"}
)

// ArcconfArgv is the command read from program: controller 1's whole
// configuration (controller, logical and physical devices). "AL" (all)
// is GETCONFIG's default; it is spelled out as check_raid and the
// ARCCONF user's guide do.
func ArcconfArgv(program string) []string {
	return []string{program, "GETCONFIG", "1", "AL"}
}

// SmartArrayArgv is the command read from program.
func SmartArrayArgv(program string) []string {
	return []string{program, "ctrl", "all", "show", "config", "detail"}
}

// StorcliArgvs are the four commands read from program: controllers,
// virtual drives, physical drives, patrol read. Recordings made before the
// fourth lack it: it is then "not recorded", and the others still read.
func StorcliArgvs(program string) [][]string {
	return [][]string{
		{program, "/call", "show", "all", "J"},
		{program, "/call/vall", "show", "all", "J"},
		{program, "/call/eall/sall", "show", "all", "J"},
		{program, "/call", "show", "patrolread", "J"},
	}
}

// MegaCliArgvs are the four commands read from program: logical drives,
// the energy pack, physical drives, patrol read (the last one, as for
// storcli, absent from older recordings).
func MegaCliArgvs(program string) [][]string {
	return [][]string{
		{program, "-LDInfo", "-Lall", "-aALL", "-NoLog"},
		{program, "-AdpBbuCmd", "-GetBbuStatus", "-aALL", "-NoLog"},
		{program, "-PDList", "-aALL", "-NoLog"},
		{program, "-AdpPR", "-Info", "-aALL", "-NoLog"},
	}
}

// ToolsOf are the programs a family tries, for hints and documentation.
func ToolsOf(family string) []string {
	switch family {
	case FamilySmartArray:
		return append([]string(nil), smartArrayTools...)
	case FamilyStorcli:
		return append([]string(nil), storcliTools...)
	case FamilyMegaCli:
		return append([]string(nil), megacliTools...)
	case FamilyArcconf:
		return append([]string(nil), arcconfTools...)
	}
	return nil
}

// run runs one command under its own deadline: a controller tool can hang
// for minutes on a sick controller, and each command is one probe.
func run(ctx context.Context, h *machine.Host, timeout time.Duration, argv []string) (machine.CmdResult, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res, err := h.Run(ctx, argv...)
	if err != nil {
		return res, err
	}
	if len(res.Stdout) == 0 && res.Exit != 0 {
		return res, machine.ExitError(res)
	}
	return res, nil
}

func joinOr(names []string) string {
	s := ""
	for i, n := range names {
		switch {
		case i == 0:
		case i == len(names)-1:
			s += " or "
		default:
			s += ", "
		}
		s += n
	}
	return s
}

// ReadSmartArray runs ssacli (or hpssacli, hpacucli) and parses it.
func ReadSmartArray(ctx context.Context, h *machine.Host, timeout time.Duration) (*Inventory, error) {
	one := func(p string) [][]string { return [][]string{SmartArrayArgv(p)} }
	inv, _, err := readAll(ctx, h, timeout, smartArrayTools, one, func(outs [][]byte) (*Inventory, error) { return ParseSmartArray(outs[0]) })
	return inv, err
}

// ReadArcconf runs arcconf and parses controller 1's configuration.
func ReadArcconf(ctx context.Context, h *machine.Host, timeout time.Duration) (*Inventory, error) {
	one := func(p string) [][]string { return [][]string{ArcconfArgv(p)} }
	inv, _, err := readAll(ctx, h, timeout, arcconfTools, one, func(outs [][]byte) (*Inventory, error) { return ParseArcconf(outs[0]) })
	return inv, err
}

// ReadStorcli runs the first installed storcli or perccli and parses its
// four outputs; a command that failed while others answered is returned
// beside what the rest gave (errs).
func ReadStorcli(ctx context.Context, h *machine.Host, timeout time.Duration) (*Inventory, []error, error) {
	return readWithPatrolRead(ctx, h, timeout, storcliTools, StorcliArgvs, ParseStorcli, ParseStorcliPatrolRead)
}

// ReadMegaCli runs the first installed MegaCli and parses its four
// outputs, as ReadStorcli does.
func ReadMegaCli(ctx context.Context, h *machine.Host, timeout time.Duration) (*Inventory, []error, error) {
	return readWithPatrolRead(ctx, h, timeout, megacliTools, MegaCliArgvs, ParseMegaCli, ParseMegaCliPatrolRead)
}

// readWithPatrolRead reads a MegaRAID family: its first three outputs make
// the inventory, the fourth adds a running patrol read. A patrol read
// output that is not understood costs only the patrol read (an error in
// errs), never the controllers the others describe.
func readWithPatrolRead(ctx context.Context, h *machine.Host, timeout time.Duration, programs []string, argvs func(string) [][]string,
	parse func(a, b, c []byte) (*Inventory, error), patrol func(*Inventory, []byte) error) (*Inventory, []error, error) {
	var patrolErr error
	inv, errs, err := readAll(ctx, h, timeout, programs, argvs, func(o [][]byte) (*Inventory, error) {
		inv, err := parse(o[0], o[1], o[2])
		if err == nil {
			patrolErr = patrol(inv, o[3])
		}
		return inv, err
	})
	if patrolErr != nil && inv != nil {
		errs = append(errs, fmt.Errorf("%s: %w", strings.Join(argvs(inv.Tool)[3], " "), patrolErr))
	}
	return inv, errs, err
}

// readAll runs a family's commands with the first of its programs that is
// installed (one whose commands are not all missing) and parses what they
// printed; a command that did not answer leaves its output nil.
func readAll(ctx context.Context, h *machine.Host, timeout time.Duration, programs []string, argvs func(string) [][]string,
	parse func(outs [][]byte) (*Inventory, error)) (*Inventory, []error, error) {
	// What a recording says of the programs, for the error when none of
	// them is there: all unrecorded, or one recorded as missing.
	absent := &machine.ToolError{Tool: joinOr(programs), NotRecorded: true}
	for _, prog := range programs {
		all := argvs(prog)
		outs, cmds, errs := make([][]byte, len(all)), [][]string(nil), []error(nil)
		missing := 0
		for i, argv := range all {
			if len(errs) > 0 && errors.Is(errs[len(errs)-1], machine.ErrTimeout) {
				// A hung controller hangs each of its commands: one
				// timeout is enough to know.
				break
			}
			r, err := run(ctx, h, timeout, argv)
			var tool *machine.ToolError
			switch {
			case errors.As(err, &tool):
				missing++
				absent.NotRecorded = absent.NotRecorded && tool.NotRecorded
				absent.Recorded = absent.Recorded || tool.Recorded
				errs = append(errs, fmt.Errorf("%s: %w", strings.Join(argv, " "), err))
			case err != nil:
				errs = append(errs, err)
			default:
				outs[i] = r.Stdout
				cmds = append(cmds, argv)
			}
		}
		if missing == len(outs) {
			continue // not installed: the next name
		}
		if len(cmds) == 0 {
			// Installed, and no command answered (a hung controller):
			// the first error says why.
			return nil, nil, errs[0]
		}
		inv, err := parse(outs)
		if err != nil {
			return nil, errs, fmt.Errorf("%s: %w", prog, err)
		}
		inv.Tool, inv.Cmds = prog, cmds
		return inv, errs, nil
	}
	if absent.Recorded {
		absent.NotRecorded = false
	}
	return nil, nil, absent
}
