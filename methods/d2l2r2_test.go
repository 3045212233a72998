package methods

import (
	"context"
	"testing"

	"github.com/lrsdl/lrsdl/core"
	"github.com/lrsdl/lrsdl/methods/internal/toy"
)

// TestD2L2R2AlphaLowRank checks that a larger α gives class dictionaries of
// smaller total nuclear norm, and that the model classifies held-out data.
func TestD2L2R2AlphaLowRank(t *testing.T) {
	C, n, d := 3, 20, 30
	Y, labels, _ := toy.Shared(C, 2*n, d, 12)
	Ytr, Yte := Y.Slice(0, d, 0, C*n), Y.Slice(0, d, C*n, 2*C*n)
	var nuc []float64
	for _, a := range []float64{-1, 0.05, 0.5} {
		m := &D2L2R2{Options: D2L2R2Options{Alpha: a, FDDLOptions: FDDLOptions{K: 5, Iters: 6, Tol: -1}}}
		if err := m.Fit(context.Background(), Ytr, labels[:C*n]); err != nil {
			t.Fatal(err)
		}
		D, part, D0 := m.Atoms()
		if D0 != nil {
			t.Error("D2L2R2 has a shared dictionary")
		}
		var s float64
		for c := 0; c < part.Blocks(); c++ {
			lo, hi := part.Block(c)
			s += core.NuclearNorm(D.Slice(0, d, lo, hi))
		}
		nuc = append(nuc, s)
		if a == 0.05 {
			pred, err := m.Predict(Yte)
			if err != nil {
				t.Fatal(err)
			}
			if acc := accuracy(pred, labels[C*n:]); acc < 0.9 {
				t.Errorf("D2L2R2 held-out accuracy %.3f, want ≥ 0.9", acc)
			}
		}
	}
	if !(nuc[0] > nuc[1] && nuc[1] > nuc[2]) {
		t.Errorf("Σ‖D_c‖_* for α = 0, 0.05, 0.5: %v, want decreasing", nuc)
	}
}
