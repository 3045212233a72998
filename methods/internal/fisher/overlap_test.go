package fisher

import (
	"context"
	"math"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
)

// TestOverlapSameAsSequential checks that outerStepOverlap gives
// outerStep's sequential result bit for bit (dictionaries, codes and
// cost after every iteration) on two cores, for FDDL and LRSDL, including
// iterations whose X step the keep-if-lower test reverts: on these
// problems no X step raises the cost, so every third iteration starts
// from a cached cost of −∞, which every new X̄ exceeds.
func TestOverlapSameAsSequential(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	ctx := context.Background()
	for _, c := range []struct {
		name   string
		k0     int
		xIters int
	}{{"FDDL", 0, 0}, {"LRSDL", 5, 0}, {"FDDL x_iters=2", 0, 2}, {"LRSDL x_iters=2", 5, 2}} {
		var runs [2]*train
		for i := range runs {
			tr := benchTrain(6, 8, 5, c.k0, 60, 0.3)
			if c.xIters > 0 {
				tr.p.XIters = c.xIters
			}
			runs[i] = tr
		}
		for it := 1; it <= 8; it++ {
			var costs [2]float64
			for i, tr := range runs {
				if it%3 == 0 {
					tr.cur, tr.curOK = lrsdl.Cost{Total: math.Inf(-1)}, true
				}
				tr.set.NoOverlap = i == 0
				if got := tr.overlaps(); got == tr.set.NoOverlap {
					t.Fatalf("%s: overlaps() = %v with NoOverlap %v", c.name, got, tr.set.NoOverlap)
				}
				cost, err := tr.outerStep(ctx)
				if err != nil {
					t.Fatal(err)
				}
				costs[i] = cost.Total
			}
			a, b := runs[0], runs[1]
			if costs[0] != costs[1] || !mat.Equal(a.Db, b.Db) || !mat.Equal(a.Xb, b.Xb) {
				t.Fatalf("%s, iteration %d: overlapped step differs from the sequential one (costs %v, %v)", c.name, it, costs[0], costs[1])
			}
			if a.reverts != b.reverts {
				t.Fatalf("%s, iteration %d: %d reverted X steps sequentially, %d overlapped", c.name, it, a.reverts, b.reverts)
			}
		}
		if runs[0].reverts != 2 {
			t.Errorf("%s: %d reverted X steps, want the 2 forced ones", c.name, runs[0].reverts)
		}
	}
}
