// Package snapshot is the snapshot feature: it records what the probes
// read on a machine (Recorder, a probes.Tracer, and Record, which runs the
// checks with one attached), redacts serial numbers, WWNs, MAC addresses
// and the host name, lays the recording out in the fixture format, writes
// it as a gzip-compressed tar (WriteArchive, through machine/archive, which
// also reads such an archive back safely whatever it holds). The diff
// package compares two states of a machine.
//
// It reads the machine only through probes.Host, so that the Host's
// containment of a recorded root applies to snapshots too; the only files
// it writes are the archive given to it and an unpacked archive inside a
// private temporary directory, through an os.Root.
package snapshot
