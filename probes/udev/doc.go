// Package udev reads udev's database records (/run/udev/data/bMAJ:MIN).
package udev
