package dl

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl/data"
	"github.com/lrsdl/lrsdl/internal/testutil"
	"github.com/lrsdl/lrsdl/methods/internal/toy"
)

// TestReduceSpan checks ReduceSpan against its definition, QᵀQ = I and
// Q·Yr = Y with r the rank of Y, for Y of full rank, of rank 3, with a
// zero column and a column scaled by 10⁶, and sparse with a repeated and
// a combined column, on both routes of ThinQR (dense, and sparse: Q₁
// formed from the rows of Y, whose Expand must agree with Q₁'s), and that
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
	for _, route := range []struct {
		name  string
		route SpanRoute
	}{{"dense", SpanDense}, {"sparse", SpanSparse}} {
		for _, tc := range []struct {
			name string
			Y    *mat.Dense
			rank int
		}{{"full rank", full, 12}, {"rank 3", low, 3}, {"zero and large columns", odd, 11}, {"sparse", sparse, 28}} {
			name := route.name + " route, " + tc.name
			d0, n := tc.Y.Dims()
			Q, Yr, err := ReduceSpan(context.Background(), tc.Y, Settings{SpanRoute: route.route})
			if err != nil || Q == nil {
				t.Fatalf("%s: %d×%d not reduced (%v)", name, d0, n, err)
			}
			if (Q.sp != nil) != (route.route == SpanSparse) {
				t.Fatalf("%s: sparse factors %v", name, Q.sp != nil)
			}
			d, r := Q.Dims()
			if cr, cc := Yr.Dims(); d != d0 || r != tc.rank || cr != r || cc != n {
				t.Fatalf("%s: Q %d×%d, Yr %d×%d; want %d×%d, %d×%d", name, d, r, cr, cc, d0, tc.rank, tc.rank, n)
			}
			Qm := Q.Expand(toy.Eye(r)) // Q·I
			var QtQ mat.Dense
			QtQ.Mul(Qm.T(), Qm)
			if !mat.EqualApprox(&QtQ, toy.Eye(r), 1e-12) {
				t.Errorf("%s: QᵀQ ≠ I", name)
			}
			if Q.sp != nil {
				dense := &SpanBasis{q1: Q.q1, v: Q.v}
				if Qd := dense.Expand(toy.Eye(r)); !mat.EqualApprox(Qm, Qd, 1e-12) {
					t.Errorf("%s: Expand through the rows of Y ≠ through Q₁", name)
				}
			}
			QYr := Q.Expand(Yr)
			for j := 0; j < n; j++ {
				var e mat.VecDense
				e.SubVec(QYr.ColView(j), tc.Y.ColView(j))
				if e, nrm := mat.Norm(&e, 2), mat.Norm(tc.Y.ColView(j), 2); e > 1e-12*math.Max(nrm, 1) {
					t.Errorf("%s: column %d: ‖Q·yr − y‖ = %g, ‖y‖ = %g", name, j, e, nrm)
				}
			}
		}
	}
	if Q, Yr, _ := ReduceSpan(context.Background(), full.Slice(0, 14, 0, 12), Settings{}); Q != nil || Yr != nil {
		t.Error("14×12 reduced, want nil (d ≤ 1.2·N)")
	}
	if Q, Yr, err := ReduceSpan(context.Background(), mat.NewDense(40, 12, nil), Settings{}); Q != nil || Yr != nil || err != nil {
		t.Error("zero matrix reduced, want nil")
	}
	if Q, _, _ := ReduceSpan(context.Background(), full, Settings{NoSpan: true}); Q != nil {
		t.Error("reduced with NoSpan set")
	}
}

// TestReduceSpanCancelled checks that a cancelled context stops the span
// reduction before it factors anything.
func TestReduceSpanCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	Q, Yr, err := ReduceSpan(ctx, mat.NewDense(300, 20, nil), Settings{})
	if !errors.Is(err, context.Canceled) || Q != nil || Yr != nil {
		t.Fatalf("ReduceSpan with a cancelled context: %v, %v, %v", Q, Yr, err)
	}
}

// BenchmarkFlowerSpan times ReduceSpan and Expand of a 425-atom dictionary
// on Oxford Flower split 1 (d=10000, N=1020, 0.8 % non-zero), the span
// overhead of every method trained in span(Y) there, on ThinQR's sparse
// route (the default there) and on its dense one.
func BenchmarkFlowerSpan(b *testing.B) {
	ds, err := data.Load(toy.Testdata("flower17-split1.mat"), data.LoadOptions{Normalize: true})
	if err != nil {
		b.Skip(err)
	}
	Y := DenseCopy(ds.Train.Y) // as in a fit: grouped by class, dense
	for _, route := range []struct {
		name  string
		route SpanRoute
	}{{"sparse", SpanAuto}, {"dense", SpanDense}} {
		b.Run(route.name, func(b *testing.B) {
			done := toy.CPUMetric(b)
			for i := 0; i < b.N; i++ {
				Q, Yr, err := ReduceSpan(context.Background(), Y, Settings{SpanRoute: route.route})
				if err != nil || Q == nil || (Q.sp != nil) != (route.route == SpanAuto) {
					b.Fatal(err)
				}
				n, _ := Yr.Dims()
				Q.Expand(mat.DenseCopyOf(Yr.Slice(0, n, 0, 425)))
			}
			done()
		})
	}
}
