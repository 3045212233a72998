package methods

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl/blas"
	"github.com/lrsdl/lrsdl/data"
	"github.com/lrsdl/lrsdl/methods/internal/dl"
)

// memoryTolerance is how far a plan may be from the measured peak, either way.
const memoryTolerance = 1.25

// TestMemoryPlans checks, for every method on two face-like training sets
// shaped like COIL-100 (d = 1024, 10 samples per class, 100 classes) at
// half and at full size, that the memory Fit plans (dl.CheckMemory) is
// within memoryTolerance of the peak live Go heap Fit adds to the heap
// holding the training data. Plans count what Fit allocates, the class-
// ordered copy of the samples included; the samples are of unit norm, so
// the normalisation copies nothing. OpenBLAS allocates its workspace
// outside the Go heap, which the plans leave out: the test measures the
// pure-Go build. Iteration counts are lowered to 2: every method allocates
// its largest buffers in its first iterations.
func TestMemoryPlans(t *testing.T) {
	if testing.Short() {
		t.Skip("trains every method on 2 sets of 500 and 1000 samples of dimension 1024")
	}
	if blas.Backend() != "gonum" {
		t.Skip("OpenBLAS allocates outside the Go heap; the pure-Go build measures the plans")
	}
	sizes := []struct{ C, d, n int }{{50, 1024, 10}, {20, 400, 30}}
	for _, sz := range sizes {
		Y, labels := data.FaceLike(sz.C, sz.d, sz.n, 1)
		for _, name := range Names() {
			t.Run(fmt.Sprintf("%s/%dx%d", name, sz.d, sz.C*sz.n), func(t *testing.T) {
				plan, err := memoryPlan(name, Y, labels)
				if err != nil {
					t.Fatal(err)
				}
				m := memoryModel(t, name)
				var ferr error
				peak := peakHeap(func() { ferr = m.Fit(context.Background(), Y, labels) })
				if ferr != nil {
					t.Fatal(ferr)
				}
				runtime.KeepAlive(m)
				ratio := plan / peak
				t.Logf("%-8s d=%d N=%d C=%d: plan %.1f MB, peak %.1f MB, ratio %.2f", name, sz.d, sz.C*sz.n, sz.C, plan/1e6, peak/1e6, ratio)
				if ratio > memoryTolerance || ratio < 1/memoryTolerance {
					t.Errorf("plan %.1f MB is not within %g× of the peak %.1f MB", plan/1e6, memoryTolerance, peak/1e6)
				}
			})
		}
	}
}

// memoryModel returns the model called name with every iteration count set to 2.
func memoryModel(t *testing.T, name string) interface {
	Fit(context.Context, mat.Matrix, []int) error
} {
	m, err := New(name)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range m.Params() {
		switch p.Name {
		case "iters", "x_iters", "d_iters", "init_iters", "admm_iters":
			if name != "SRC" {
				if err := m.SetParam(p.Name, "2"); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	return m
}

// memoryPlan returns the bytes the method called name plans for training
// on Y: the need of the error of a Fit under a memory limit of 1 byte.
func memoryPlan(name string, Y mat.Matrix, labels []int) (float64, error) {
	m, err := New(name)
	if err != nil {
		return 0, err
	}
	defer dl.SetMemoryLimit(dl.SetMemoryLimit(1))
	err = m.Fit(context.Background(), Y, labels)
	var me *dl.MemoryError
	if !errors.As(err, &me) {
		return 0, fmt.Errorf("Fit under a limit of 1 byte returned %v, want a memory error", err)
	}
	return me.Need, nil
}

// peakHeap runs f and returns the peak of the live Go heap during it
// above the live heap before it. The live heap is what the collector
// marks; while f runs it collects whenever the heap grows by 2%, so a
// buffer of more than 2% of the heap is marked if it outlives the
// collection its allocation starts, and a goroutine reads the marked
// size every 50µs. A last collection after f counts what f keeps.
func peakHeap(f func()) float64 {
	const live = "/gc/heap/live:bytes"
	read := func(s []metrics.Sample) uint64 { metrics.Read(s); return s[0].Value.Uint64() }
	runtime.GC()
	base := read([]metrics.Sample{{Name: live}})
	prev := debug.SetGCPercent(gcPercentX())
	stop, done := make(chan struct{}), make(chan uint64)
	go func() {
		s := []metrics.Sample{{Name: live}}
		peak := base
		for {
			peak = max(peak, read(s))
			select {
			case <-stop:
				done <- peak
				return
			default:
				time.Sleep(50 * time.Microsecond)
			}
		}
	}()
	f()
	runtime.GC()
	close(stop)
	peak := <-done
	debug.SetGCPercent(prev)
	return float64(peak - base)
}
