// Package pcie reads the PCIe link of a PCI function: current_link_speed,
// max_link_speed, current_link_width and max_link_width of its sysfs
// directory (the kernel's Documentation/ABI/testing/sysfs-bus-pci).
package pcie
