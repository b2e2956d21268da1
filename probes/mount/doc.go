// Package mount reads the mount table (/proc/self/mountinfo), swap areas
// (/proc/swaps) and what stat(2) and statfs(2) say about a path.
package mount
