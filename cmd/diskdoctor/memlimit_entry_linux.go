//go:build linux && (amd64 || arm64)

package main

// entry is the ELF entry point of a build linked with -ldflags
// "-E main.entry": it hides GOMEMLIMIT (hideMemLimit) and jumps to the
// runtime's entry. Never called from Go.
func entry()

// hideMemLimit renames each GOMEMLIMIT= of the null-terminated C string
// list envp to gOMEMLIMIT= in place and sets entryShim if it renamed one.
//
//go:noescape
func hideMemLimit(envp **byte)
