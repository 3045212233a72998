//go:build unix

package methods

import (
	"syscall"
	"time"
)

// lrsdlCPUTime returns the CPU time used by the process so far: on the
// shared machine it measures work where wall time measures contention.
func lrsdlCPUTime() time.Duration {
	var r syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &r) != nil {
		return 0
	}
	return time.Duration(r.Utime.Nano() + r.Stime.Nano())
}
