// Package nvmepm reads the power management settings that decide how deep
// an NVMe drive and its PCIe link may sleep: APST's latency limit (the
// nvme_core module parameter default_ps_max_latency_us and each
// controller's power/pm_qos_latency_tolerance_us, drivers/nvme/host/core.c),
// the PCIe ASPM policy (/sys/module/pcie_aspm/parameters/policy,
// drivers/pci/pcie/aspm.c) and the ASPM states enabled on a function's link
// (<function>/link/*_aspm, Documentation/ABI/testing/sysfs-bus-pci).
package nvmepm
