// Package drive reads a drive's own write-cache setting: hdparm -W, the ATA
// IDENTIFY words 82 and 85, NVMe get-feature 0x06 (Volatile Write Cache).
package drive
