package drive

import (
	"errors"
	"testing"

	"github.com/diskdoctor/diskdoctor/internal/testutil"
	"github.com/diskdoctor/diskdoctor/machine"
)

func TestParseHdparmW(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		enabled *bool
		err     bool
	}{
		{"off", "\n/dev/sda:\n write-caching =  0 (off)\n", testutil.Ptr(false), false},
		{"on", "\n/dev/sdb:\n write-caching =  1 (on)\n", testutil.Ptr(true), false},
		{"CRLF", "\r\n/dev/sdb:\r\n write-caching =  1 (on)\r\n", testutil.Ptr(true), false},
		{"no final newline", "\n/dev/sdb:\n write-caching =  0 (off)", testutil.Ptr(false), false},
		{"not supported", "\n/dev/sdc:\n write-caching = not supported\n", testutil.Ptr(false), false},
		{"empty", "", nil, true},
		{"garbage", "\x00\xff binary junk\n", nil, true},
		{"truncated", "\n/dev/sda:\n write-cach", nil, true},
		{"contradiction", " write-caching =  1 (off)\n", nil, true},
		{"out of range", " write-caching =  7 (on)\n", nil, true},
		{"ioctl error only", "\n/dev/sda:\n", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dc, err := ParseHdparmW([]byte(tt.in))
			if tt.err {
				if err == nil || !errors.Is(err, machine.ErrParse) {
					t.Fatalf("want ErrParse, got %v (%+v)", err, dc)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if *dc.Enabled != *tt.enabled {
				t.Errorf("enabled = %v, want %v", *dc.Enabled, *tt.enabled)
			}
		})
	}
}
