package raidctl

// ParseMegaCli is being written on branch h-megacli.
func ParseMegaCli(ldinfo, bbu, pdlist []byte) (*Inventory, error) {
	return &Inventory{Family: FamilyMegaCli}, nil
}
