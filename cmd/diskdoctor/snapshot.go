package main

import (
	"errors"
	"time"

	"github.com/spf13/cobra"

	"github.com/diskdoctor/diskdoctor/snapshot"
)

func init() {
	subcommands = append(subcommands, newSnapshotCmd)
}

func newSnapshotCmd() *cobra.Command {
	var o snapshot.TakeOptions
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
			if o.Output == "" {
				return errors.New("snapshot: -o FILE is required (- for standard output)")
			}
			o.Version = version
			return snapshot.Take(cmd.Context(), o, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.Output, "output", "o", "", "the archive to write (.tar.gz); - for standard output")
	f.BoolVar(&o.KeepSerials, "keep-serials", false, "keep serial numbers, WWNs, MAC addresses and the host name (they are redacted by default)")
	f.StringVar(&o.Root, "root", "", "record a recorded machine (a fixture or unpacked snapshot) instead of this one")
	f.StringVar(&o.HostRoot, "host-root", "", "record the live host whose root filesystem is mounted at this directory (from a container) instead of this one")
	f.DurationVar(&o.ProbeTimeout, "probe-timeout", 5*time.Second, "how long one probe (a file read or a command) may take")
	return cmd
}
