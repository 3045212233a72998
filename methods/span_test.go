package methods

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/core"
	"github.com/lrsdl/lrsdl/data"
	"github.com/lrsdl/lrsdl/internal/testutil"
)

// TestReduceSpan checks reduceSpan against its definition, QᵀQ = I and
// Q·Yr = Y with r the rank of Y, for Y of full rank, of rank 3, with a
// zero column and a column scaled by 10⁶, and sparse with a repeated and
// a combined column, on both routes of thinQR (dense, and sparse: Q₁
// formed from the rows of Y, whose expand must agree with Q₁'s), and that
// it leaves near-square data alone.
func TestReduceSpan(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	full := testutil.RandDense(rng, 40, 12)
	low := mat.NewDense(40, 12, nil)
	low.Mul(full.Slice(0, 40, 0, 3), full.Slice(0, 3, 0, 12))
	odd := mat.DenseCopyOf(full)
	odd.Slice(0, 40, 4, 5).(*mat.Dense).Zero()
	v := odd.ColView(7).(*mat.VecDense)
	v.ScaleVec(1e6, v)
	sparse := mat.NewDense(400, 30, nil) // 2 % non-zero
	for k := 0; k < 240; k++ {
		sparse.Set(rng.IntN(400), rng.IntN(28), rng.NormFloat64())
	}
	sparse.Slice(0, 400, 28, 29).(*mat.Dense).Copy(sparse.ColView(3))
	sparse.Slice(0, 400, 29, 30).(*mat.Dense).Add(sparse.ColView(5), sparse.ColView(9))
	density := spanSparseDensity
	defer func() { spanSparseDensity = density }()
	for _, route := range []struct {
		name    string
		density float64
	}{{"dense", 0}, {"sparse", 1}} {
		spanSparseDensity = route.density
		for _, tc := range []struct {
			name string
			Y    *mat.Dense
			rank int
		}{{"full rank", full, 12}, {"rank 3", low, 3}, {"zero and large columns", odd, 11}, {"sparse", sparse, 28}} {
			name := route.name + " route, " + tc.name
			d0, n := tc.Y.Dims()
			Q, Yr, err := reduceSpan(context.Background(), tc.Y)
			if err != nil || Q == nil {
				t.Fatalf("%s: %d×%d not reduced (%v)", name, d0, n, err)
			}
			if (Q.sp != nil) != (route.density > 0) {
				t.Fatalf("%s: sparse factors %v", name, Q.sp != nil)
			}
			d, r := Q.Dims()
			if cr, cc := Yr.Dims(); d != d0 || r != tc.rank || cr != r || cc != n {
				t.Fatalf("%s: Q %d×%d, Yr %d×%d; want %d×%d, %d×%d", name, d, r, cr, cc, d0, tc.rank, tc.rank, n)
			}
			Qm := expand(Q, eye(r)) // Q·I
			var QtQ mat.Dense
			QtQ.Mul(Qm.T(), Qm)
			if !mat.EqualApprox(&QtQ, eye(r), 1e-12) {
				t.Errorf("%s: QᵀQ ≠ I", name)
			}
			if Q.sp != nil {
				dense := &spanBasis{q1: Q.q1, v: Q.v}
				if Qd := expand(dense, eye(r)); !mat.EqualApprox(Qm, Qd, 1e-12) {
					t.Errorf("%s: expand through the rows of Y ≠ through Q₁", name)
				}
			}
			QYr := expand(Q, Yr)
			for j := 0; j < n; j++ {
				var e mat.VecDense
				e.SubVec(QYr.ColView(j), tc.Y.ColView(j))
				if e, nrm := mat.Norm(&e, 2), mat.Norm(tc.Y.ColView(j), 2); e > 1e-12*math.Max(nrm, 1) {
					t.Errorf("%s: column %d: ‖Q·yr − y‖ = %g, ‖y‖ = %g", name, j, e, nrm)
				}
			}
		}
	}
	spanSparseDensity = density
	if Q, Yr, _ := reduceSpan(context.Background(), full.Slice(0, 14, 0, 12)); Q != nil || Yr != nil {
		t.Error("14×12 reduced, want nil (d ≤ 1.2·N)")
	}
	if Q, Yr, err := reduceSpan(context.Background(), mat.NewDense(40, 12, nil)); Q != nil || Yr != nil || err != nil {
		t.Error("zero matrix reduced, want nil")
	}
	spanOff = true
	defer func() { spanOff = false }()
	if Q, _, _ := reduceSpan(context.Background(), full); Q != nil {
		t.Error("reduced with spanOff set")
	}
}

func eye(n int) *mat.Dense {
	I := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		I.Set(i, i, 1)
	}
	return I
}

// TestSpanReductionSameModel trains every method that reduces to span(Y) on
// a d > N problem with and without the reduction and compares the learned
// dictionaries, the cost on the full data and the predicted labels.
func TestSpanReductionSameModel(t *testing.T) {
	Y, sp, _, _ := dlsiToyProblem(3, 3, 60, 8, 3)
	labels := make([]int, sp.Len())
	for c := 0; c < sp.Blocks(); c++ {
		lo, hi := sp.Block(c)
		for j := lo; j < hi; j++ {
			labels[j] = 10 + c
		}
	}
	Yt, _, _, _ := dlsiToyProblem(4, 3, 60, 5, 3)
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
			spanOff = off
			m := mk()
			err := m.Fit(context.Background(), Y, labels)
			spanOff = false
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

// TestReduceSpanCancelled checks that a cancelled context stops the span
// reduction before it factors anything.
func TestReduceSpanCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	Q, Yr, err := reduceSpan(ctx, mat.NewDense(300, 20, nil))
	if !errors.Is(err, context.Canceled) || Q != nil || Yr != nil {
		t.Fatalf("reduceSpan with a cancelled context: %v, %v, %v", Q, Yr, err)
	}
}

// BenchmarkFlowerSpan times reduceSpan and expand of a 425-atom dictionary
// on Oxford Flower split 1 (d=10000, N=1020, 0.8 % non-zero), the span
// overhead of every method trained in span(Y) there, on thinQR's sparse
// route (the default there) and on its dense one.
func BenchmarkFlowerSpan(b *testing.B) {
	ds, err := data.Load("../testdata/flower17-split1.mat", data.LoadOptions{Normalize: true})
	if err != nil {
		b.Skip(err)
	}
	Y := denseCopy(ds.Train.Y) // as in a fit: grouped by class, dense
	density := spanSparseDensity
	defer func() { spanSparseDensity = density }()
	for _, route := range []struct {
		name    string
		density float64
	}{{"sparse", density}, {"dense", 0}} {
		b.Run(route.name, func(b *testing.B) {
			spanSparseDensity = route.density
			done := cpuMetric(b)
			for i := 0; i < b.N; i++ {
				Q, Yr, err := reduceSpan(context.Background(), Y)
				if err != nil || Q == nil || (Q.sp != nil) != (route.density > 0) {
					b.Fatal(err)
				}
				n, _ := Yr.Dims()
				expand(Q, mat.DenseCopyOf(Yr.Slice(0, n, 0, 425)))
			}
			done()
		})
	}
}
