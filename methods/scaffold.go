package methods

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/core"
)

// ErrNotTrained is returned by Predict, Cost, State and the other methods
// that need a trained model when Fit (or SetState) has not succeeded.
var ErrNotTrained = errors.New("methods: model is not trained")

// trainedDict returns ErrNotTrained for a model whose dictionary D has not
// been learned or restored.
func trainedDict(D *mat.Dense) error {
	if D == nil {
		return ErrNotTrained
	}
	return nil
}

// infoOf returns the sizes of the training set Y (samples as columns)
// grouped by g, and its largest sample norm.
func infoOf(Y mat.Matrix, g *core.Grouping) dataInfo {
	d, _ := Y.Dims()
	info := dataInfo{d: d, n: g.Part.Len(), classes: g.Classes.Len(), minClass: math.MaxInt, maxNorm: maxColNorm(Y)}
	for c := 0; c < info.classes; c++ {
		info.minClass = min(info.minClass, g.Part.Size(c))
	}
	return info
}

// maxColNorm returns the largest ℓ2 norm of a column of Y.
func maxColNorm(Y mat.Matrix) float64 {
	_, n := Y.Dims()
	sq := make([]float64, n)
	if nz, ok := Y.(mat.NonZeroDoer); ok {
		nz.DoNonZero(func(_, j int, v float64) { sq[j] += v * v })
	} else {
		r, _ := Y.Dims()
		for i := 0; i < r; i++ {
			for j := 0; j < n; j++ {
				v := Y.At(i, j)
				sq[j] += v * v
			}
		}
	}
	var m float64
	for _, v := range sq {
		m = max(m, v)
	}
	return math.Sqrt(m)
}

// loop configures runOuter.
type loop struct {
	iters    int                // outer iterations
	tol      float64            // relative change of the cost that stops; 0 never stops early
	progress lrsdl.ProgressFunc // called after every iteration, or nil
	start    time.Time          // start of Fit
}

// runOuter runs step for the outer iterations it = 1..l.iters. step
// returns the cost after its iteration, which it may skip computing (and
// return zero) when wantCost is false. runOuter checks ctx before every
// iteration, reports Progress, and stops once the cost changes by at most
// tol relative to the previous iteration's, from iteration 2 on.
func runOuter(ctx context.Context, l loop, step func(it int, wantCost bool) (lrsdl.Cost, error)) (lrsdl.FitInfo, error) {
	return continueOuter(ctx, l, lrsdl.FitInfo{}, step)
}

// continueOuter is runOuter from after iteration info.Iters, whose cost is
// info.Cost (Resume): the same iterations, tolerance test, progress and
// FitInfo as one runOuter over l.iters, l.start set back by the time
// already spent.
func continueOuter(ctx context.Context, l loop, info lrsdl.FitInfo, step func(it int, wantCost bool) (lrsdl.Cost, error)) (lrsdl.FitInfo, error) {
	info.Stop = lrsdl.StopMaxIters
	want := l.tol > 0 || l.progress != nil
	prev := info.Cost.Total
	for it := info.Iters + 1; it <= l.iters; it++ {
		if err := ctx.Err(); err != nil {
			info.Stop, info.Elapsed = lrsdl.StopCancelled, time.Since(l.start)
			return info, err
		}
		cost, err := step(it, want)
		if err != nil {
			if ctx.Err() != nil {
				info.Stop = lrsdl.StopCancelled
			}
			info.Elapsed = time.Since(l.start)
			return info, err
		}
		info.Iters, info.Cost, info.Elapsed = it, cost, time.Since(l.start)
		converged := it >= 2 && l.tol > 0 && math.Abs(prev-cost.Total) <= l.tol*math.Abs(prev)
		if converged {
			info.Stop = lrsdl.StopConverged
		}
		if l.progress != nil {
			p := lrsdl.Progress{Iter: it, Cost: cost, Elapsed: info.Elapsed}
			if converged || it == l.iters {
				p.Stop = info.Stop
			}
			l.progress(p)
		}
		if converged {
			break
		}
		prev = cost.Total
	}
	return info, nil
}

// decodeState checks that s is a state of the named method with at least
// 2 increasing class labels and the named finite, non-empty matrices, and
// decodes its options into opts, whose ranges it checks. It returns the
// classes.
func decodeState(s *lrsdl.State, method string, opts interface{ spec() optSpec }, matrices ...string) (*core.Classes, error) {
	switch {
	case s == nil:
		return nil, fmt.Errorf("methods: nil %s state", method)
	case s.Method != method:
		return nil, fmt.Errorf("methods: state is for method %q, not %s", s.Method, method)
	case len(s.Classes) < 2:
		return nil, fmt.Errorf("methods: %s state has %d classes, need at least 2", method, len(s.Classes))
	}
	for i := 1; i < len(s.Classes); i++ {
		if s.Classes[i] <= s.Classes[i-1] {
			return nil, fmt.Errorf("methods: %s state class labels are not increasing at %d", method, i)
		}
	}
	if err := json.Unmarshal(s.Options, opts); err != nil {
		return nil, fmt.Errorf("methods: %s state options: %v", method, err)
	}
	if err := opts.spec().resolve(nil); err != nil {
		return nil, fmt.Errorf("%v (in the model's state)", err)
	}
	for _, name := range matrices {
		m := s.Matrices[name]
		if m == nil || m.IsEmpty() {
			return nil, fmt.Errorf("methods: %s state has no matrix %q", method, name)
		}
		if err := checkFinite(fmt.Sprintf("%s state matrix %q", method, name), m); err != nil {
			return nil, err
		}
	}
	return core.ClassesOf(s.Classes), nil
}

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

// checkMemory returns an error when floats float64 values (the largest
// buffers the method allocates at these sizes) exceed the memory limit;
// lower names the options or data that set the size.
func checkMemory(method string, floats float64, lower string) error {
	need, limit := 8*floats, float64(MemoryLimit())
	if need <= limit && !math.IsNaN(need) {
		return nil
	}
	return fmt.Errorf("methods: %s would need about %s of memory at these sizes, above the limit of %s (methods.SetMemoryLimit): lower %s", method, bytesText(need), bytesText(limit), lower)
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
