//go:build !linux

package probes

import "errors"

func ataCheckPower(string) (string, bool, error) {
	return "", false, errors.New("CHECK POWER MODE: SG_IO is Linux only")
}
