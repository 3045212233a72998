package dl

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
)

// memLimit is the memory limit of SetMemoryLimit in bytes; 0 means the default.
var memLimit atomic.Int64

// SetMemoryLimit sets the memory, in bytes, that Fit may plan to use: a Fit
// whose sizes (samples, dimension, atoms) need more returns an error naming
// the option to lower instead of allocating. A limit ≤ 0 restores the
// default, half the physical memory. It returns the previous limit.
func SetMemoryLimit(bytes int64) int64 {
	prev := MemoryLimit()
	memLimit.Store(max(bytes, 0))
	return prev
}

// MemoryLimit returns the limit set by SetMemoryLimit.
func MemoryLimit() int64 {
	if l := memLimit.Load(); l > 0 {
		return l
	}
	return physicalMemory() / 2
}

// physicalMemory returns the machine's memory in bytes (MemTotal of
// /proc/meminfo), or 8 GiB where that cannot be read.
func physicalMemory() int64 {
	const fallback = 8 << 30
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return fallback
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err == nil && kb > 0 {
				return kb << 10
			}
		}
	}
	return fallback
}

// MemoryError is the error of CheckMemory: the memory a method plans to
// use at these sizes is above the limit.
type MemoryError struct {
	Method      string  // e.g. "SRRS"
	Need, Limit float64 // bytes planned, and the limit
	Lower       string  // the options or data that set the size
}

// Error returns the message: method, need, limit and what to lower.
func (e *MemoryError) Error() string {
	return fmt.Sprintf("methods: %s would need about %s of memory at these sizes, above the limit of %s (methods.SetMemoryLimit): lower %s", e.Method, bytesText(e.Need), bytesText(e.Limit), e.Lower)
}

// CheckMemory returns a *MemoryError when floats float64 values (the
// method's plan: what it allocates at most at these sizes) exceed the
// memory limit; lower names the options or data that set the size.
func CheckMemory(method string, floats float64, lower string) error {
	need, limit := 8*floats, float64(MemoryLimit())
	if need <= limit && !math.IsNaN(need) {
		return nil
	}
	return &MemoryError{Method: method, Need: need, Limit: limit, Lower: lower}
}

// bytesText formats a byte count as "12.3 GB".
func bytesText(b float64) string {
	units := []string{"B", "kB", "MB", "GB", "TB", "PB", "EB"}
	u := 0
	for b >= 1000 && u < len(units)-1 {
		b /= 1000
		u++
	}
	if u == len(units)-1 && b >= 1000 {
		return "more than 1000 EB"
	}
	return strconv.FormatFloat(b, 'f', 1, 64) + " " + units[u]
}

// SpanRows returns the rows training works on after ReduceSpan: N when
// it reduces (d > SpanRatio·N), else d.
func SpanRows(info Info, set Settings) float64 {
	if reduces(info.Dim, info.N, set) {
		return float64(info.N)
	}
	return float64(info.Dim)
}

// SpanFloats returns the floats ReduceSpan keeps: the d×N basis Q₁, its
// N×N factor V and the N×N coordinates Yr; 0 when it does not reduce.
func SpanFloats(info Info, set Settings) float64 {
	if !reduces(info.Dim, info.N, set) {
		return 0
	}
	d, N := float64(info.Dim), float64(info.N)
	return d*N + 2*N*N
}
