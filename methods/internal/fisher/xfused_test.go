package fisher

import (
	"context"
	"errors"
	"runtime"
	"testing"

	"github.com/lrsdl/lrsdl/methods/internal/dl"
	"gonum.org/v1/gonum/mat"
)

// TestFusedXStep checks the fused X step (xfused) against core.FISTA with
// xstep.grad on the same problem, for a fixed number of iterations with
// restarts: the same iterate up to rounding, and bit for bit the same on one
// core and two.
func TestFusedXStep(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, c := range []struct {
		C, n, k, k0 int
		lambda2     float64
	}{
		{2, 350, 20, 10, 0.01}, // AR gender's sizes: two halves on two cores
		{3, 101, 10, 5, 0.05},  // pieces cut by chunks within classes
		{5, 60, 8, 0, 0.05},    // FDDL: no shared atoms
		{4, 90, 10, 6, 0},      // no Fisher term
		{2, 48, 3, 2, 0.05},    // the fewest samples per class
	} {
		var X [3]*mat.Dense
		for r, mode := range []struct {
			shared bool
			procs  int
		}{{true, 2}, {false, 1}, {false, 2}} {
			tr := benchTrain(c.C, c.n, c.k, c.k0, 60, 0.3)
			tr.p.Lambda2 = c.lambda2
			tr.p.XIters, tr.p.XTol = 150, -1
			runtime.GOMAXPROCS(mode.procs)
			if mode.shared {
				tr.set.XStep = dl.XStepShared
			}
			err := tr.solveXJoint(context.Background(), tr.Xb)
			if err != nil {
				t.Fatal(err)
			}
			if fused := tr.xf.s != nil; fused == mode.shared {
				t.Fatalf("%+v: fused step ran: %v, want %v", c, fused, !mode.shared)
			}
			X[r] = tr.Xb
		}
		var d mat.Dense
		d.Sub(X[1], X[0])
		if e, n := mat.Norm(&d, 2), mat.Norm(X[0], 2); !(e <= 1e-10*n) || n == 0 {
			t.Errorf("%+v: ‖fused − FISTA‖ = %g, ‖FISTA‖ = %g", c, e, n)
		}
		if !mat.Equal(X[1], X[2]) {
			t.Errorf("%+v: one core and two differ", c)
		}
	}
}

// TestFusedXStepCancel checks that a cancelled context stops the fused X
// step on one core and two with the context's error.
func TestFusedXStepCancel(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, procs := range []int{1, 2} {
		runtime.GOMAXPROCS(procs)
		tr := benchTrain(2, 350, 20, 10, 60, 0.3)
		if err := tr.gc.update(context.Background(), tr.Db, tr.Y, tr.sp, tr.K); err != nil { // the cost's products, which check ctx too
			t.Fatal(err)
		}
		if err := tr.solveXJoint(ctx, tr.Xb); !errors.Is(err, context.Canceled) || tr.xf.s == nil {
			t.Errorf("GOMAXPROCS %d: err = %v, fused %v; want context.Canceled from the fused step", procs, err, tr.xf.s != nil)
		}
	}
}
