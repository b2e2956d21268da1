package machine

import "golang.org/x/sys/unix"

// NoCoreDumps lowers the process's soft RLIMIT_CORE to 0 (setrlimit(2),
// core(5)), so that a crash writes no core: it would hold the serials,
// paths and command outputs the doctor read, which a snapshot redacts. The
// hard limit is left as it is; the programs the doctor runs inherit the
// soft one, and none needs a core.
func NoCoreDumps() {
	var core unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_CORE, &core) == nil && core.Cur != 0 {
		core.Cur = 0
		_ = unix.Setrlimit(unix.RLIMIT_CORE, &core)
	}
}
