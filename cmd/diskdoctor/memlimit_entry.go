package main

import "os"

// entryShim is 1 when the program's entry point (entry_linux_amd64.s,
// entry_linux_arm64.s; linked in with -ldflags "-E main.entry" by make
// build and packaging/build-deb.sh) hid GOMEMLIMIT from the Go runtime. It
// is written before the runtime starts and only read after.
var entryShim uint8

// hiddenMemLimit is the name the entry point gives GOMEMLIMIT: one of the
// same length, since the environment is renamed where it lies.
const hiddenMemLimit = "gOMEMLIMIT"

// restoreMemLimit gives GOMEMLIMIT back its name, for the doctor and the
// programs it runs, and reports whether the entry point had hidden it: the
// runtime then never read it, and the doctor checks and applies it itself
// (checkRuntimeEnv, limitMemory).
func restoreMemLimit() bool {
	if entryShim == 0 {
		return false
	}
	if v, ok := os.LookupEnv(hiddenMemLimit); ok {
		os.Unsetenv(hiddenMemLimit)
		os.Setenv("GOMEMLIMIT", v)
	}
	return true
}
