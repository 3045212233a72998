package fisher

import (
	"context"
	"testing"
)

// TestFDDLEfficientMatchesOriginal checks that each efficient step (E-FDDL-X,
// E-FDDL-D) reaches a cost within 1 % of its original counterpart (or lower)
// from the same starting point.
func TestFDDLEfficientMatchesOriginal(t *testing.T) {
	ctx := context.Background()
	for _, step := range []string{"X", "D"} {
		run := func(orig bool) float64 {
			tr := benchTrain(6, 8, 4, 0, 40, 0.3)
			var err error
			if step == "X" {
				tr.p.OrigX = orig
				err = tr.stepX(ctx)
			} else {
				tr.p.OrigD = orig
				err = tr.stepD(ctx)
			}
			if err != nil {
				t.Fatal(err)
			}
			return tr.mustCost().Total
		}
		o, e := run(true), run(false)
		if e > 1.01*o {
			t.Errorf("FDDL-%s: efficient cost %g above original %g by more than 1%%", step, e, o)
		}
		t.Logf("FDDL-%s: original %g, efficient %g", step, o, e)
	}
}
