package md

// The parser of /proc/mdstat (drivers/md/md.c md_seq_show), ported from
// github.com/prometheus/procfs v0.23.0 mdstat.go (Apache License 2.0,
// Copyright The Prometheus Authors) with the fields this package uses:
// procfs parses only a file it opens itself, and a probe parses the bytes
// the Host read. It reads what procfs reads, line for line
// (FuzzParseIsProcfs), indexing lines without checking them as procfs
// does; mdFromStats recovers from such a panic.

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

var (
	statusLineRE         = regexp.MustCompile(`(\d+) blocks .*\[(\d+)/(\d+)\] \[([U_]+)\]`)
	recoveryLineBlocksRE = regexp.MustCompile(`\((\d+/\d+)\)`)
	recoveryLinePctRE    = regexp.MustCompile(`= (.+)%`)
	recoveryLineFinishRE = regexp.MustCompile(`finish=(.+)min`)
	recoveryLineSpeedRE  = regexp.MustCompile(`speed=(.+)[A-Z]`)
	componentDeviceRE    = regexp.MustCompile(`(.*)\[(\d+)\]((?:\([FJRSW]\))+)?`)
)

const personalitiesPrefix = "Personalities : "

var errFileParse = errors.New("file parse error")

// mdStat is one array as procfs.MDStat has it.
type mdStat struct {
	Name, Type, ActivityState                                   string
	DisksActive, DisksTotal, DisksFailed, DisksDown, DisksSpare int64
	BlocksSyncedPct, BlocksSyncedFinishTime, BlocksSyncedSpeed  float64
	Devices                                                     []mdComponent
}

// mdComponent is a member as procfs.MDStatComponent has it.
type mdComponent struct {
	Name                       string
	Faulty, Spare, Replacement bool
}

// parseMDStat is procfs's parseMDStat.
func parseMDStat(data []byte) ([]mdStat, error) {
	mdStats := []mdStat{}
	lines := strings.Split(string(data), "\n")
	knownRaidTypes := make(map[string]bool)
	for i, line := range lines {
		if strings.TrimSpace(line) == "" || line[0] == ' ' || strings.HasPrefix(line, "unused") {
			continue
		}
		// Personalities : [linear] [multipath] [raid0] [raid1] [raid6] [raid5] [raid4] [raid10]
		if len(knownRaidTypes) == 0 && strings.HasPrefix(line, personalitiesPrefix) {
			for word := range strings.FieldsSeq(line[len(personalitiesPrefix):]) {
				knownRaidTypes[word[1:len(word)-1]] = true
			}
			continue
		}
		s, err := parseMDDevice(lines, i, knownRaidTypes)
		if err != nil {
			return nil, err
		}
		mdStats = append(mdStats, s)
	}
	return mdStats, nil
}

// parseMDDevice parses the array whose first line is lines[i].
func parseMDDevice(lines []string, i int, knownRaidTypes map[string]bool) (mdStat, error) {
	line := lines[i]
	deviceFields := strings.Fields(line)
	if len(deviceFields) < 3 {
		return mdStat{}, fmt.Errorf("%w: Expected 3+ lines, got %q", errFileParse, line)
	}
	mdName := deviceFields[0] // mdx
	state := deviceFields[2]  // active, inactive, broken
	mdType := "unknown"       // raid1, raid5, etc.
	var deviceStartIndex int
	if len(deviceFields) > 3 { // mdType may be in the 3rd or 4th field
		if isRaidType(deviceFields[3], knownRaidTypes) {
			mdType = deviceFields[3]
			deviceStartIndex = 4
		} else if len(deviceFields) > 4 && isRaidType(deviceFields[4], knownRaidTypes) {
			// if the 3rd field is (...), the 4th field is the mdType
			mdType = deviceFields[4]
			deviceStartIndex = 5
		}
	}
	if len(lines) <= i+3 {
		return mdStat{}, fmt.Errorf("%w: Too few lines for md device: %q", errFileParse, mdName)
	}
	// Failed (Faulty) disks have the suffix (F) & Spare disks have the suffix (S).
	fail := int64(strings.Count(line, "(F)"))
	spare := int64(strings.Count(line, "(S)"))
	active, total, down, _, err := evalStatusLine(lines[i], lines[i+1])
	if err != nil {
		return mdStat{}, fmt.Errorf("%w: Cannot parse md device lines: %v: %w", errFileParse, active, err)
	}
	syncLineIdx := i + 2
	if strings.Contains(lines[i+2], "bitmap") { // skip bitmap line
		syncLineIdx++
	}
	syncLine := lines[syncLineIdx]
	var pct, finish, speed float64
	recovering := strings.Contains(syncLine, "recovery")
	reshaping := strings.Contains(syncLine, "reshape")
	resyncing := strings.Contains(syncLine, "resync")
	checking := strings.Contains(syncLine, "check")
	if recovering || resyncing || checking || reshaping {
		switch {
		case recovering:
			state = "recovering"
		case reshaping:
			state = "reshaping"
		case checking:
			state = "checking"
		default:
			state = "resyncing"
		}
		// Handle case when resync=PENDING or resync=DELAYED.
		if !strings.Contains(syncLine, "PENDING") && !strings.Contains(syncLine, "DELAYED") {
			if pct, finish, speed, err = evalRecoveryLine(syncLine); err != nil {
				return mdStat{}, fmt.Errorf("%w: Cannot parse sync line in md device: %q: %w", errFileParse, mdName, err)
			}
		}
	}
	devices, err := evalComponentDevices(deviceFields[deviceStartIndex:])
	if err != nil {
		return mdStat{}, fmt.Errorf("error parsing components in md device %q: %w", mdName, err)
	}
	return mdStat{
		Name: mdName, Type: mdType, ActivityState: state,
		DisksActive: active, DisksFailed: fail, DisksDown: down, DisksSpare: spare, DisksTotal: total,
		BlocksSyncedPct: pct, BlocksSyncedFinishTime: finish, BlocksSyncedSpeed: speed,
		Devices: devices,
	}, nil
}

// isRaidType: a known personality, not "(...)" nor "sda[0]".
func isRaidType(mdType string, knownRaidTypes map[string]bool) bool {
	_, ok := knownRaidTypes[mdType]
	return !strings.ContainsAny(mdType, "([") && ok
}

// evalStatusLine reads "523968 blocks super 1.2 [4/4] [UUUU]".
func evalStatusLine(deviceLine, statusLine string) (active, total, down, size int64, err error) {
	statusFields := strings.Fields(statusLine)
	if len(statusFields) < 1 {
		return 0, 0, 0, 0, fmt.Errorf("%w: Unexpected statusline %q", errFileParse, statusLine)
	}
	size, err = strconv.ParseInt(statusFields[0], 10, 64)
	if err != nil {
		return 0, 0, 0, 0, fmt.Errorf("%w: Unexpected statusline %q: %w", errFileParse, statusLine, err)
	}
	if strings.Contains(deviceLine, "raid0") || strings.Contains(deviceLine, "linear") {
		// In the device line, only disks have a number associated with them in [].
		total = int64(strings.Count(deviceLine, "["))
		return total, total, 0, size, nil
	}
	if strings.Contains(deviceLine, "inactive") {
		return 0, 0, 0, size, nil
	}
	matches := statusLineRE.FindStringSubmatch(statusLine)
	if len(matches) != 5 {
		return 0, 0, 0, 0, fmt.Errorf("%w: Could not find all substring matches %s", errFileParse, statusLine)
	}
	if total, err = strconv.ParseInt(matches[2], 10, 64); err != nil {
		return 0, 0, 0, 0, fmt.Errorf("%w: Unexpected statusline %q: %w", errFileParse, statusLine, err)
	}
	if active, err = strconv.ParseInt(matches[3], 10, 64); err != nil {
		return 0, 0, 0, 0, fmt.Errorf("%w: Unexpected active %d: %w", errFileParse, active, err)
	}
	down = int64(strings.Count(matches[4], "_"))
	return active, total, down, size, nil
}

// evalRecoveryLine reads "[=>...]  recovery = 12.6% (37043392/292945152)
// finish=127.5min speed=33440K/sec"; the block counts must parse, as in
// procfs, though only the figures are kept.
func evalRecoveryLine(line string) (pct, finish, speed float64, err error) {
	matches := recoveryLineBlocksRE.FindStringSubmatch(line)
	if len(matches) != 2 {
		return 0, 0, 0, fmt.Errorf("%w: Unexpected recoveryLine blocks %s", errFileParse, line)
	}
	blocks := strings.Split(matches[1], "/")
	if _, err = strconv.ParseInt(blocks[0], 10, 64); err != nil {
		return 0, 0, 0, fmt.Errorf("%w: Unable to parse recovery blocks synced %q: %w", errFileParse, matches[1], err)
	}
	if _, err = strconv.ParseInt(blocks[1], 10, 64); err != nil {
		return 0, 0, 0, fmt.Errorf("%w: Unable to parse recovery to be synced blocks %q: %w", errFileParse, matches[1], err)
	}
	if matches = recoveryLinePctRE.FindStringSubmatch(line); len(matches) != 2 {
		return 0, 0, 0, fmt.Errorf("%w: Unexpected recoveryLine matching percentage %s", errFileParse, line)
	}
	if pct, err = strconv.ParseFloat(strings.TrimSpace(matches[1]), 64); err != nil {
		return 0, 0, 0, fmt.Errorf("%w: Error parsing float from recoveryLine %q", errFileParse, line)
	}
	if matches = recoveryLineFinishRE.FindStringSubmatch(line); len(matches) != 2 {
		return pct, 0, 0, fmt.Errorf("%w: Unexpected recoveryLine matching est. finish time: %s", errFileParse, line)
	}
	if finish, err = strconv.ParseFloat(matches[1], 64); err != nil {
		return pct, 0, 0, fmt.Errorf("%w: Unable to parse float from recoveryLine: %q", errFileParse, line)
	}
	if matches = recoveryLineSpeedRE.FindStringSubmatch(line); len(matches) != 2 {
		return pct, finish, 0, fmt.Errorf("%w: Unexpected recoveryLine value: %s", errFileParse, line)
	}
	if speed, err = strconv.ParseFloat(matches[1], 64); err != nil {
		return pct, finish, 0, fmt.Errorf("%w: Error parsing float from recoveryLine: %q: %w", errFileParse, line, err)
	}
	return pct, finish, speed, nil
}

// evalComponentDevices reads the members "sdb1[1](F)" (flags of md.c
// md_seq_show: F faulty, S spare, R replacement, J journal, W write-mostly).
func evalComponentDevices(deviceFields []string) ([]mdComponent, error) {
	out := make([]mdComponent, 0)
	for _, field := range deviceFields {
		match := componentDeviceRE.FindStringSubmatch(field)
		if match == nil {
			continue
		}
		if _, err := strconv.ParseInt(match[2], 10, 32); err != nil {
			return out, fmt.Errorf("error parsing int from device %q: %w", match[2], err)
		}
		out = append(out, mdComponent{
			Name:        match[1],
			Faulty:      strings.Contains(match[3], "(F)"),
			Spare:       strings.Contains(match[3], "(S)"),
			Replacement: strings.Contains(match[3], "(R)"),
		})
	}
	return out, nil
}
