// Package fio parses fio's JSON output (--output-format=json) and builds the
// job files and argv that bench runs.
package fio
