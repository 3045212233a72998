//go:build unix

package cputime

import (
	"syscall"
	"time"
)

// Process returns the user and system CPU time used by the process so far,
// over all its threads, or 0 when the system does not tell.
func Process() time.Duration {
	var r syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &r) != nil {
		return 0
	}
	return time.Duration(r.Utime.Nano() + r.Stime.Nano())
}
