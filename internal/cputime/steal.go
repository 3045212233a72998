package cputime

import (
	"bytes"
	"runtime"
	"strconv"
	"time"
)

// parseSteal returns the steal time of the "cpu" line that opens the text
// of /proc/stat, whose eighth number counts USER_HZ ticks (hundredths of a
// second), or 0 if there is none.
func parseSteal(stat []byte) time.Duration {
	line, _, _ := bytes.Cut(stat, []byte("\n"))
	f := bytes.Fields(line)
	if len(f) < 9 || string(f[0]) != "cpu" {
		return 0
	}
	ticks, err := strconv.ParseUint(string(f[8]), 10, 63)
	if err != nil {
		return 0
	}
	return time.Duration(ticks) * 10 * time.Millisecond
}

// StealShare returns the steal since an earlier reading steal of Steal,
// taken wall ago, as a fraction of the machine's CPU time over that wall
// time.
func StealShare(steal, wall time.Duration) float64 {
	if wall <= 0 {
		return 0
	}
	return float64(Steal()-steal) / (float64(wall) * float64(runtime.NumCPU()))
}
