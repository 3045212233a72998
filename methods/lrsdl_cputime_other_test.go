//go:build !unix

package methods

import "time"

func lrsdlCPUTime() time.Duration { return 0 }
