package fixturetest

import (
	"bytes"
	"slices"
	"sync"
)

// Shared makes a value once per key for the whole test binary and hands
// the same value to every test that asks: a recorded machine examined
// once, its report read by each test over every fixture, instead of the
// doctor run again (and its rules parsed again) per test. The keys are
// whatever the caller finds by globbing fixtures/, so a machine added
// there is shared as well.
//
// A shared value is read-only. Fingerprint, when set, is taken of each
// value as it is made; Changed takes it again, so that a test which wrote
// to what it was given (and so changed what the next test reads) fails
// the package instead of passing by the order the tests ran in.
type Shared[V any] struct {
	Fingerprint func(V) ([]byte, error)
	m           sync.Map // key → *sharedEntry[V]
}

type sharedEntry[V any] struct {
	once sync.Once
	v    V
	err  error
	fp   []byte
}

// Get is the value for key, made by make on the first call only; every
// caller for the key gets the same value and error. Callers for other
// keys do not wait.
func (s *Shared[V]) Get(key string, make func() (V, error)) (V, error) {
	e, _ := s.m.LoadOrStore(key, &sharedEntry[V]{})
	en := e.(*sharedEntry[V])
	en.once.Do(func() {
		en.v, en.err = make()
		if en.err == nil && s.Fingerprint != nil {
			en.fp, en.err = s.Fingerprint(en.v)
		}
	})
	return en.v, en.err
}

// Changed lists, sorted, the keys whose value no longer has the
// fingerprint it had when it was made: a test changed what it was only to
// read. Call it after the tests (TestMain, after m.Run).
func (s *Shared[V]) Changed() []string {
	var out []string
	s.m.Range(func(k, e any) bool {
		en := e.(*sharedEntry[V])
		if en.fp == nil || s.Fingerprint == nil {
			return true
		}
		if fp, err := s.Fingerprint(en.v); err != nil || !bytes.Equal(fp, en.fp) {
			out = append(out, k.(string))
		}
		return true
	})
	slices.Sort(out)
	return out
}
