package fisher

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/blas"
	"github.com/lrsdl/lrsdl/core"
	"github.com/lrsdl/lrsdl/internal/testutil"
)

// TestPiecesBits checks that gemmPieces and syrkPieces, at sizes that make
// more than one piece, give the unsplit Gemm's and Syrk's bits, on
// submatrices whose stride exceeds their width.
func TestPiecesBits(t *testing.T) {
	testutil.Backends(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(1, 2))
		A := testutil.RandDense(rng, 700, 410)
		a := sub(A.RawMatrix(), 0, 700, 5, 405)
		b := testutil.RandDense(rng, 700, 600).RawMatrix()
		if columnsPerPiece(a.Cols*a.Rows) >= b.Cols {
			t.Fatal("the product makes one piece")
		}
		got, want := mat.NewDense(400, 600, nil), mat.NewDense(400, 600, nil)
		if err := gemmPieces(context.Background(), a, b, got.RawMatrix()); err != nil {
			t.Fatal(err)
		}
		blas.Gemm(gblas.Trans, gblas.NoTrans, 1, a, b, 0, want.RawMatrix())
		if !testutil.EqualBits(got, want) {
			t.Error("gemmPieces differs from Gemm")
		}
		s := sub(testutil.RandDense(rng, 800, 620).RawMatrix(), 0, 800, 3, 603)
		if s.Cols*s.Cols*s.Rows/2 < pieceWork {
			t.Fatal("the rank-k update makes one piece")
		}
		got, want = mat.NewDense(600, 600, nil), mat.NewDense(600, 600, nil)
		if err := syrkPieces(context.Background(), s, got.RawMatrix()); err != nil {
			t.Fatal(err)
		}
		w := want.RawMatrix()
		blas64.Syrk(gblas.Trans, 1, s, 0, blas64.Symmetric{Uplo: gblas.Upper, N: 600, Data: w.Data, Stride: w.Stride})
		if !testutil.EqualBits(got, want) {
			t.Error("syrkPieces differs from Syrk")
		}
	})
}

// costTrain returns a train with random D̄ (k0 shared atoms) and X̄ whose
// cost's products make more than one piece.
func costTrain(rng *rand.Rand) *train {
	const d, k, k0, n, C = 600, 100, 10, 200, 4
	sizes, asz := make([]int, C), make([]int, C)
	for c := range sizes {
		sizes[c], asz[c] = n, k
	}
	sp, ap := core.NewPartition(sizes...), core.NewPartition(asz...)
	Y := testutil.RandDense(rng, d, C*n)
	Db := testutil.RandUnitCols(rng, d, C*k+k0)
	Xb := testutil.RandDense(rng, C*k+k0, C*n)
	return &train{p: Params{Lambda1: 0.01, Lambda2: 0.1, Eta: 0.1}, Y: Y, sp: sp, ap: ap, K: C * k, k0: k0, Db: Db, Xb: Xb}
}

// TestCostCancelled cancels the cost at each check of the context during
// its products, after D̄ changed in place since the last cost: each time
// it returns context.Canceled, and the next cost is that of a train which
// never had a cache, bit for bit.
func TestCostCancelled(t *testing.T) {
	fresh := costTrain(rand.New(rand.NewPCG(3, 4)))
	fresh.Db.Set(0, 0, fresh.Db.At(0, 0)+0.5)
	want := fresh.mustCost()
	if columnsPerPiece(fresh.K*600) >= fresh.Xb.RawMatrix().Cols {
		t.Fatal("DᵀY makes one piece")
	}
	tr := costTrain(rand.New(rand.NewPCG(3, 4)))
	var checks int64
	for at := int64(1); ; at++ {
		tr.mustCost() // a cache of the first D̄
		tr.Db.Set(0, 0, tr.Db.At(0, 0)+0.5)
		ctx := &testutil.CancelAt{Context: context.Background(), At: at}
		if _, err := tr.cost(ctx); err == nil {
			checks = at - 1
			break
		} else if !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled at check %d: %v, want context.Canceled", at, err)
		}
		if got := tr.mustCost(); !sameCost(got, want) {
			t.Errorf("cancelled at check %d, then cost %v, want %v", at, got.Total, want.Total)
		}
		tr.Db.Set(0, 0, tr.Db.At(0, 0)-0.5)
	}
	if checks < 4 {
		t.Errorf("the cost checked the context %d times, want at least 4 (2 pieces of DᵀY)", checks)
	}
}

// sameCost reports whether a and b have the same terms bit for bit.
func sameCost(a, b lrsdl.Cost) bool {
	if len(a.Terms) != len(b.Terms) || math.Float64bits(a.Total) != math.Float64bits(b.Total) {
		return false
	}
	for i := range a.Terms {
		if a.Terms[i].Name != b.Terms[i].Name || math.Float64bits(a.Terms[i].Value) != math.Float64bits(b.Terms[i].Value) {
			return false
		}
	}
	return true
}
