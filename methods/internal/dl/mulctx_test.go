package dl

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl/internal/testutil"
)

// TestMulDenseContext checks that MulDenseContext by panels equals
// MulDense bit for bit, by columns and by rows of the product, and that a
// cancellation between panels returns context.Canceled.
func TestMulDenseContext(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	D, Y, Z := testutil.RandUnitCols(rng, 60, 50), testutil.RandUnitCols(rng, 60, 90), testutil.RandUnitCols(rng, 200, 60)
	small := WithMulTile(context.Background(), 5000)
	for _, c := range []struct {
		name string
		a, b mat.Matrix
	}{{"DᵀD", D.T(), D}, {"DᵀY", D.T(), Y}, {"Z·D", Z, D}, {"Yᵀ·Y", Y.T(), Y}} {
		var want, got mat.Dense
		MulDense(&want, c.a, c.b)
		if err := MulDenseContext(small, &got, c.a, c.b); err != nil {
			t.Fatal(err)
		}
		if !testutil.EqualBits(&want, &got) {
			t.Errorf("%s by panels differs from MulDense", c.name)
		}
		var dst mat.Dense
		if err := MulDenseContext(&testutil.CancelAt{Context: small, At: 3}, &dst, c.a, c.b); !errors.Is(err, context.Canceled) {
			t.Errorf("%s cancelled at its third panel: %v, want context.Canceled", c.name, err)
		}
	}
}
