package methods

import (
	"context"
	"math"
	"testing"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/core"
	"github.com/lrsdl/lrsdl/methods/internal/dl"
	"github.com/lrsdl/lrsdl/methods/internal/toy"
	"gonum.org/v1/gonum/mat"
)

// TestSpanReductionSameModel trains every method that reduces to span(Y) on
// a d > N problem with and without the reduction and compares the learned
// dictionaries, the cost on the full data and the predicted labels.
func TestSpanReductionSameModel(t *testing.T) {
	Y, sp, _, _ := toy.Classes(3, 3, 60, 8, 3)
	labels := make([]int, sp.Len())
	for c := 0; c < sp.Blocks(); c++ {
		lo, hi := sp.Block(c)
		for j := lo; j < hi; j++ {
			labels[j] = 10 + c
		}
	}
	Yt, _, _, _ := toy.Classes(4, 3, 60, 5, 3)
	// LC-KSVD with sparsity 1: its atoms start as samples, which OMP then
	// fits exactly with one atom, so a second pick would be a tie broken by
	// rounding.
	dict := func(m lrsdl.Classifier) *mat.Dense {
		if a, ok := m.(interface {
			Atoms() (*mat.Dense, core.Partition, *mat.Dense)
		}); ok {
			D, _, D0 := a.Atoms()
			if D0 == nil {
				return D
			}
			var DD mat.Dense
			DD.Augment(D, D0)
			return &DD
		}
		return m.(*ODL).m.D
	}
	for _, mk := range []func() lrsdl.Classifier{
		func() lrsdl.Classifier { return &DLSI{Options: DLSIOptions{K: 3, Lambda: 0.01, Iters: 4, Seed: 1}} },
		func() lrsdl.Classifier {
			return &DLSI{Options: DLSIOptions{K: 3, Lambda: 0.01, Iters: 2, OriginalD: true, Seed: 1}}
		},
		func() lrsdl.Classifier {
			return &COPAR{Options: COPAROptions{K: 3, K0: 2, Lambda: 0.01, Iters: 4, Seed: 1}}
		},
		func() lrsdl.Classifier {
			return &COPAR{Options: COPAROptions{K: 3, K0: 2, Lambda: 0.01, Iters: 2, OriginalD: true, Seed: 1}}
		},
		func() lrsdl.Classifier { return &LCKSVD1{Options: LCKSVDOptions{K: 3, Sparsity: 1, Iters: 5, Seed: 1}} },
		func() lrsdl.Classifier { return &LCKSVD2{Options: LCKSVDOptions{K: 3, Sparsity: 1, Iters: 5, Seed: 1}} },
		func() lrsdl.Classifier { return &ODL{Options: ODLOptions{K: 3, Lambda: 0.01, Iters: 5, Seed: 1}} },
	} {
		var D [2]*mat.Dense
		var cost [2]float64
		var pred [2][]int
		name := mk().Name()
		for i, off := range []bool{false, true} {
			m := mk()
			m.(interface{ settings() *dl.Settings }).settings().NoSpan = off
			err := m.Fit(context.Background(), Y, labels)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			D[i] = dict(m)
			c, err := m.(interface {
				Cost(mat.Matrix, []int) (lrsdl.Cost, error)
			}).Cost(Y, labels)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			cost[i] = c.Total
			if pred[i], err = m.Predict(Yt); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
		var diff mat.Dense
		diff.Sub(D[0], D[1])
		if r := mat.Norm(&diff, 2) / mat.Norm(D[1], 2); !(r <= 1e-8) {
			t.Errorf("%s: ‖D_reduced − D‖/‖D‖ = %.3g", name, r)
		}
		if r := math.Abs(cost[0]-cost[1]) / cost[1]; !(r <= 1e-8) {
			t.Errorf("%s: cost %v reduced, %v not", name, cost[0], cost[1])
		}
		for j := range pred[0] {
			if pred[0][j] != pred[1][j] {
				t.Errorf("%s: sample %d predicted %d reduced, %d not", name, j, pred[0][j], pred[1][j])
				break
			}
		}
	}
}
