package cputime

import (
	"os"
	"time"
)

// Steal returns the time the hypervisor has run other guests while this
// machine's CPUs wanted to run, summed over the CPUs since boot (the
// steal column of /proc/stat), or 0 when the system does not tell.
func Steal() time.Duration {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	return parseSteal(b)
}
