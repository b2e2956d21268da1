package kernlog

import "testing"

func TestKlogKey(t *testing.T) {
	for in, want := range map[string]string{
		"ata3.00: cmd 60/08:f0 tag 30": "ata3.#: cmd # tag #",
		"blk_update_request: I/O error, dev sdb, sector 123456789 op 0x0:(READ) flags 0x80700": "blk_update_request: I/O error, dev sdb, sector # op #:(READ) flags #",
		"pcieport 0000:00:1c.4: AER: Corrected error received: 0000:03:00.0":                   "pcieport #: AER: Corrected error received: #",
		"a0x12 10x5 0x1fg deadbeef cafe 12g 1.5 4/8 1.x _1 1_":                                 "a# 1# #g deadbeef cafe 12g # # #.x _1 1_",
		"tabs\tand\n\nnew\r\nlines  \f end   ":                                                 "tabs and new lines end ",
		"":                                                                                     "",
	} {
		if got := Key(in); got != want {
			t.Errorf("Key(%q) = %q, want %q", in, got, want)
		}
	}
}
