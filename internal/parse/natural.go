package parse

import (
	"strconv"
)

// FirstNonEmpty is the first of vs that is not empty, "" when none is.
func FirstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

// NaturalLess orders sda < sdb < sdz < sdaa and nvme2n1 < nvme10n1: runs
// of digits compare by value; runs of letters that start alike (a kernel
// name prefix such as "sd") compare by length first, as the kernel counts.
func NaturalLess(a, b string) bool {
	for a != "" && b != "" {
		ca, ra := chunk(a)
		cb, rb := chunk(b)
		if ca != cb {
			na, numA := chunkNumber(ca)
			nb, numB := chunkNumber(cb)
			switch {
			case numA && numB && na != nb:
				return na < nb
			case !numA && !numB && len(ca) != len(cb) && len(ca) >= 2 && len(cb) >= 2 && ca[:2] == cb[:2]:
				return len(ca) < len(cb)
			default:
				return ca < cb
			}
		}
		a, b = ra, rb
	}
	return len(a) < len(b)
}

// chunkNumber is the value of a chunk of digits. Only those are given to
// Atoi: its error for a name ("sd", "nvme") is an allocation per
// comparison, and sorting many disks makes many comparisons.
func chunkNumber(c string) (int, bool) {
	if c[0] < '0' || c[0] > '9' {
		return 0, false
	}
	n, err := strconv.Atoi(c)
	return n, err == nil
}

func chunk(s string) (string, string) {
	digit := s[0] >= '0' && s[0] <= '9'
	i := 1
	for i < len(s) && (s[i] >= '0' && s[i] <= '9') == digit {
		i++
	}
	return s[:i], s[i:]
}
