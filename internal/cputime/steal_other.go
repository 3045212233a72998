//go:build !linux

package cputime

import "time"

// Steal returns 0: this system's steal time is not read.
func Steal() time.Duration { return 0 }
