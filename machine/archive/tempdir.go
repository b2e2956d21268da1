package archive

import "github.com/diskdoctor/diskdoctor/machine/tempname"

// unpackPrefix names the directories Open unpacks into:
// $TMPDIR/diskdoctor-snapshot-PID-<16 hex> (machine/tempname), so that
// the next run can tell a dead run's directory from anything else.
const unpackPrefix = "diskdoctor-snapshot-"

// unpackDirPID is the process of an unpack directory's name.
func unpackDirPID(name string) (int, bool) { return tempname.PID(name, unpackPrefix, "") }

// makeUnpackDir makes this run's unpack directory, after removing those
// of dead runs (tempname.Mkdir).
func makeUnpackDir() (string, error) { return tempname.Mkdir(unpackPrefix) }
