// Package parse holds the small number and ordering helpers every parser
// shares: decimal and finite float parsing, natural ordering.
package parse
