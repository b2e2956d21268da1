// Package archtest holds the tests of the project's layout itself: which
// packages may touch the machine. It has no code of its own.
package archtest
