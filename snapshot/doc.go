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
//
// Its files, by concern: take.go runs the doctor traced (Record);
// record.go is the Recorder, the tracer; collect.go turns what it traced
// into a Recording (Collect), with collectors capturing chunks of the
// paths at once and merged; capture.go is one collector (a path's entry,
// a directory's placeholders, the reads still to do); resolve.go walks a
// path through the machine's links (internal/inroot) and listing.go keeps
// the directory listings the walks look names up in. redact.go is the
// tokenizer and what it replaces; secrets.go finds the secrets, in files
// (secrets_files.go: sysfs identity attributes, udev records) and in text
// (secrets_text.go: command output, the kernel log, MAC addresses);
// rewrite.go applies the tokens to a Recording. layout.go lays a Recording
// out in the fixture format; write.go writes it as an archive.
package snapshot
