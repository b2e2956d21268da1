package machine

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestReadUserFileRefusesWhatWouldHang: a FIFO named as --datasheets is
// refused at once, not read forever; a file over the limit is refused; a
// regular file is read.
func TestReadUserFileRefusesWhatWouldHang(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("mkfifo:", err)
	}
	done := make(chan error, 1)
	go func() {
		// Opening a FIFO for reading blocks until a writer comes: open it
		// non-blocking first, as ReadUserFile must.
		_, err := ReadUserFile(fifo, 1<<20)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("FIFO: error %v", err)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("ReadUserFile hangs on a FIFO")
	}
	big := filepath.Join(dir, "big")
	if err := os.WriteFile(big, make([]byte, 2048), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadUserFile(big, 1024); err == nil || !strings.Contains(err.Error(), "larger than 1024 bytes") {
		t.Errorf("over the limit: error %v", err)
	}
	if b, err := ReadUserFile(big, 4096); err != nil || len(b) != 2048 {
		t.Errorf("regular file: %d bytes, %v", len(b), err)
	}
}
