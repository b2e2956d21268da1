package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/diskdoctor/diskdoctor/machine"
	"github.com/diskdoctor/diskdoctor/report"
	"github.com/diskdoctor/diskdoctor/snapshot"
)

func init() {
	subcommands = append(subcommands, newSnapshotCmd)
}

type snapshotOptions struct {
	output       string
	root         string
	hostRoot     string
	keepSerials  bool
	probeTimeout time.Duration
}

func newSnapshotCmd() *cobra.Command {
	var o snapshotOptions
	cmd := &cobra.Command{
		Use:   "snapshot -o FILE.tar.gz",
		Short: "Record what the doctor reads on this machine into one file, to replay anywhere",
		Long: `snapshot runs every check on this machine with a recorder attached and
writes exactly the files, directories, links and command outputs the probes
used into a gzip-compressed tar in the fixture layout (docs/snapshots.md).
Serial numbers, WWNs, MAC addresses and the host name are replaced by stable
tokens unless --keep-serials. Replay it with 'diskdoctor --snapshot FILE',
compare two with 'diskdoctor diff OLD NEW'.`,
		Example: `  diskdoctor snapshot -o host.tar.gz
  diskdoctor --snapshot host.tar.gz
  diskdoctor diff baseline.tar.gz live`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.output == "" {
				return errors.New("snapshot: -o FILE is required (- for standard output)")
			}
			return takeSnapshot(cmd.Context(), o, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.output, "output", "o", "", "the archive to write (.tar.gz); - for standard output")
	f.BoolVar(&o.keepSerials, "keep-serials", false, "keep serial numbers, WWNs, MAC addresses and the host name (they are redacted by default)")
	f.StringVar(&o.root, "root", "", "record a recorded machine (a fixture or unpacked snapshot) instead of this one")
	f.StringVar(&o.hostRoot, "host-root", "", "record the live host whose root filesystem is mounted at this directory (from a container) instead of this one")
	f.DurationVar(&o.probeTimeout, "probe-timeout", 5*time.Second, "how long one probe (a file read or a command) may take")
	return cmd
}

func takeSnapshot(ctx context.Context, o snapshotOptions, stdout, stderr io.Writer) error {
	start := time.Now()
	var src *machine.Host
	var label string
	var err error
	switch {
	case o.hostRoot != "" && o.root != "":
		return errors.New("snapshot: --host-root records a live host; it excludes --root (a recording)")
	case o.hostRoot != "":
		src, label, err = snapshot.HostRootSource(ctx, o.hostRoot)
	default:
		src, label, err = snapshot.Source(ctx, o.root)
	}
	if err != nil {
		return err
	}
	var progress func(string)
	if report.IsTerminal(stderr) {
		progress = func(s string) { fmt.Fprintf(stderr, "\r\x1b[Kdiskdoctor snapshot: %s", s) }
	}
	rec, err := snapshot.Record(ctx, src, snapshot.RecordOptions{KeepSerials: o.keepSerials, ProbeTimeout: o.probeTimeout, Progress: progress, Inventoried: sizeMemory})
	if err != nil {
		return err
	}
	if progress != nil {
		progress("writing " + o.output)
	}
	meta := rec.Meta(version, label, start).Marshal()
	var st snapshot.ArchiveStats
	write := func(w io.Writer) error {
		var err error
		st, err = snapshot.WriteArchive(w, rec, meta, start)
		return err
	}
	if o.output == "-" {
		err = write(stdout)
	} else {
		// A snapshot describes the machine: readable by its owner only.
		err = machine.WriteAtomically(o.output, 0o600, write)
	}
	if progress != nil {
		fmt.Fprint(stderr, "\r\x1b[K")
	}
	if err != nil {
		return err
	}
	snapshot.WriteSummary(stderr, o.output, rec, st, time.Since(start))
	return nil
}
