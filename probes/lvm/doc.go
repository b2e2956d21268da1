// Package lvm reads LVM's logical volumes through lvs' JSON report: the
// thin pools among them, how full their data and metadata are, and the
// health character of their lv_attr.
package lvm
