// Package proc reads a process's command line and open files
// (/proc/PID/cmdline, /proc/PID/fd).
package proc
