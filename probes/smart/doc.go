// Package smart reads drive health: smartctl -x -j, or the ATA and NVMe
// SMART logs directly, and the ATA power mode.
package smart
