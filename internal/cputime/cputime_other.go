//go:build !unix

package cputime

import "time"

// Process returns 0: this system's CPU time is not read.
func Process() time.Duration { return 0 }
