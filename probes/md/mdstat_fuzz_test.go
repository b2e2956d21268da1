package md

import (
	"os"
	"testing"
)

// FuzzParseMDStat: procfs's parser, which panics on some malformed files,
// never crashes Read: a malformed /proc/mdstat is an error.
func FuzzParseMDStat(f *testing.F) {
	if b, err := os.ReadFile("../../fixtures/md-raid1-degraded/proc/mdstat"); err == nil {
		f.Add(b)
	}
	f.Add([]byte("Personalities : [raid1]\nmd6 : active raid1 sdb2[2](F) sdc[1](S) sda2[0]\n      195310144 blocks [2/1] [U_]\n      [=>...]  recovery =  8.5% (16775552/195310144) finish=17.0min speed=259783K/sec\n\n"))
	f.Add([]byte("Personalities : x\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = readMDStat(t, b)
	})
}
