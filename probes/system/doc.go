// Package system reads the system facts: DMI platform, os-release, CPU
// frequency governor, pressure stall information, memory and uptime.
package system
