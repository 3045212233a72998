package methods

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl/blas"
	"github.com/lrsdl/lrsdl/internal/testutil"
)

// TestCoparRowsMul checks that coparRowsMul by blocks of rows equals
// blas.SparseRowsMul bit for bit on sparse and dense codes, and that a
// cancellation between blocks returns context.Canceled.
func TestCoparRowsMul(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const m, K = 300, 140
	G := testutil.RandUnitCols(rng, K, K)
	for _, density := range []float64{0.02, 1} {
		A := mat.NewDense(m, K, nil)
		for i := range m {
			for j := range K {
				if rng.Float64() < density {
					A.Set(i, j, rng.NormFloat64())
				}
			}
		}
		want, got := mat.NewDense(m, K, nil), mat.NewDense(m, K, nil)
		blas.SparseRowsMul(want.RawMatrix(), A.RawMatrix(), G.RawMatrix())
		if err := coparRowsMul(context.Background(), got.RawMatrix(), A.RawMatrix(), G.RawMatrix(), 20*K*K); err != nil {
			t.Fatal(err)
		}
		if !testutil.EqualBits(want, got) {
			t.Errorf("density %v: by blocks differs from SparseRowsMul", density)
		}
		if err := coparRowsMul(&testutil.CancelAt{Context: context.Background(), At: 3}, got.RawMatrix(), A.RawMatrix(), G.RawMatrix(), 20*K*K); !errors.Is(err, context.Canceled) {
			t.Errorf("density %v: cancelled at the second block: %v, want context.Canceled", density, err)
		}
	}
}

// TestJDLGram checks that jdlGram by panels equals DᵀD by one product bit
// for bit and that a cancellation between panels returns context.Canceled.
func TestJDLGram(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	D := testutil.RandUnitCols(rng, 50, 80)
	var want mat.Dense
	want.Mul(D.T(), D)
	got := mat.NewDense(80, 80, nil)
	if err := jdlGram(context.Background(), got, D, 7*50); err != nil {
		t.Fatal(err)
	}
	if !testutil.EqualBits(&want, got) {
		t.Error("DᵀD by panels differs from one product")
	}
	if err := jdlGram(&testutil.CancelAt{Context: context.Background(), At: 2}, got, D, 7*50); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled at the second panel: %v, want context.Canceled", err)
	}
}
