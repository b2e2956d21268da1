// Package report renders a rules.Report for people and for machines: text
// (lipgloss, for a terminal or a pipe), json (the diskdoctor/v1 contract),
// prometheus (node_exporter's textfile collector) and nagios (a monitoring
// plugin's status line), each registered by name. A report becomes a file
// through machine.WriteAtomically (Emit).
//
// A renderer only formats what the report holds: it reads nothing from the
// machine and judges nothing (that is probes/, checks/ and rules/). Every
// string that came from the examined machine is made safe for a terminal
// before the text renderer prints it.
package report
