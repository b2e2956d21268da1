package zfs

import (
	"reflect"
	"testing"
)

func TestParseZpoolGet(t *testing.T) {
	got := ParseZpoolGet([]byte("storage\toff\ntank\ton\n\ngarbage line\nbad name\tx\n\t\n"))
	want := map[string]string{"storage": "off", "tank": "on"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}
