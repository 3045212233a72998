package fisher

import (
	"context"
	"runtime"
	"testing"
)

// TestOuterStepGarbage checks that, once the workspaces are grown, an
// outer iteration of E-FDDL and the D step of LRSDL allocate less than
// one K̄×N matrix: the D and D0 steps reuse their matrices (train.db)
// instead of allocating E, F, M(X) and the new dictionary every time.
// (LRSDL's D0 step is left out: its ADMM's singular value thresholding
// allocates.)
func TestOuterStepGarbage(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	ctx := context.Background()
	for _, c := range []struct {
		name string
		k0   int
		step func(*train) error
	}{
		{"E-FDDL outer iteration", 0, func(tr *train) error { _, err := tr.outerStep(ctx); return err }},
		{"LRSDL D step", 7, func(tr *train) error { return tr.stepD(ctx) }},
	} {
		tr := benchTrain(10, 7, 7, c.k0, 300, 0.1)
		// Ten warm-up iterations: the codes' density settles, and with it
		// the choice of sparse or dense products and their workspaces.
		const warm, iters = 10, 3
		for range warm {
			if err := c.step(tr); err != nil {
				t.Fatal(err)
			}
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range iters {
			if err := c.step(tr); err != nil {
				t.Fatal(err)
			}
		}
		runtime.ReadMemStats(&after)
		kb, N := tr.Xb.Dims()
		per := float64(after.TotalAlloc-before.TotalAlloc) / iters
		t.Logf("%s: %.0f bytes in %.0f allocations (a K̄×N matrix: %d bytes)", c.name, per, float64(after.Mallocs-before.Mallocs)/iters, 8*kb*N)
		if per >= float64(8*kb*N) {
			t.Errorf("%s allocates %.0f bytes, more than a %d×%d matrix (%d bytes)", c.name, per, kb, N, 8*kb*N)
		}
	}
}
