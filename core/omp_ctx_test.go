package core

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl/internal/testutil"
)

// TestOMPTiles checks that OMP's Gram matrix and DᵀY by tiles equal, bit
// for bit, the products in one piece (each entry is one product over the
// whole inner dimension), and that OMP returns context.Canceled when
// cancelled at any check, between tiles included.
func TestOMPTiles(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 13))
	const d, k, n = 70, 90, 110
	D, Y := testutil.RandUnitCols(rng, d, k), testutil.RandUnitCols(rng, d, n)
	G, Gt := mat.NewDense(k, k, nil), mat.NewDense(k, k, nil)
	gramTo(G, D)
	if err := ompGram(tiles(3000), Gt, D); err != nil {
		t.Fatal(err)
	}
	B, Bt := mat.NewDense(k, n, nil), mat.NewDense(k, n, nil)
	MulTrans(B, D, Y)
	if err := mulTransContext(tiles(3000), Bt, D, Y); err != nil {
		t.Fatal(err)
	}
	if !testutil.EqualBits(G, Gt) || !testutil.EqualBits(B, Bt) {
		t.Error("tiled DᵀD or DᵀY differs from the product in one piece")
	}
	want, got := mat.NewDense(k, n, nil), mat.NewDense(k, n, nil)
	if err := OMP(context.Background(), want, D, Y, 5, 0); err != nil {
		t.Fatal(err)
	}
	if err := OMP(tiles(3000), got, D, Y, 5, 0); err != nil {
		t.Fatal(err)
	}
	if !testutil.EqualBits(want, got) {
		t.Error("OMP by tiles differs from OMP in one piece")
	}
	everyCheck(t, tiles(3000), "OMP", func(ctx context.Context) error {
		return OMP(ctx, mat.NewDense(k, n, nil), D, Y, 5, 0)
	})
	if err := OMP(&testutil.CancelAt{Context: tiles(3000), At: 3}, got, D, Y, 5, 0); !errors.Is(err, context.Canceled) {
		t.Errorf("OMP cancelled in its Gram matrix: %v", err)
	}
}
