// Package kernlog reads the kernel log (dmesg, or a recorded one),
// classifies its storage messages and attributes them to devices.
package kernlog
