package incoherent

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/lrsdl/lrsdl/internal/testutil"
	"github.com/lrsdl/lrsdl/methods/internal/dl"
	"github.com/lrsdl/lrsdl/methods/internal/toy"
	"gonum.org/v1/gonum/mat"
)

// TestDLSIWorkReused checks that E-DLSI-D passes whose blocks share one
// Gram's workspaces (work: ADMM's, the factorisation of the Z step
// on its goroutine, the copies of D and of the other atoms) give the bits
// of passes that start each block from fresh workspaces, over blocks of
// different sizes (COPAR's shared block), with S⁻¹ formed and with the
// Cholesky solves (dl.Settings.NoWoodburyInverse) and with both in one pass, twice over so that the workspaces are
// reused at sizes smaller than their capacity.
func TestDLSIWorkReused(t *testing.T) {
	const d, C, n, eta = 40, 3, 6, 0.3
	part := dl.BlockPartition(C, 4, 7)
	for _, noInverse := range []bool{false, true} {
		func() {
			set := dl.Settings{NoWoodburyInverse: noInverse}
			rng := rand.New(rand.NewPCG(8, 9))
			D0 := testutil.RandUnitCols(rng, d, part.Len())
			Y := testutil.RandDense(rng, d, 30)
			X := testutil.RandDense(rng, part.Len(), 30)
			var F, E mat.Dense
			F.Mul(X, X.T())
			E.Mul(Y, X.T())
			run := func(fresh bool) *mat.Dense {
				D := mat.DenseCopyOf(D0)
				var g Gram
				g.Init(D)
				duals := make([]mat.Dense, part.Blocks())
				for pass := 0; pass < 2; pass++ {
					for b := 0; b < part.Blocks(); b++ {
						if fresh {
							g.work = workspace{}
						}
						lo, hi := part.Block(b)
						Db := D.Slice(0, d, lo, hi).(*mat.Dense)
						Eb := mat.DenseCopyOf(E.Slice(0, d, lo, hi))
						Fb := mat.DenseCopyOf(F.Slice(lo, hi, lo, hi))
						var A *mat.Dense
						if fresh {
							A = OtherAtoms(D, part, b)
						} else {
							A = OtherAtomsTo(&g.work.a, D, part, b)
						}
						if err := UpdateGram(context.Background(), Db, Eb, Fb, A, &g, part, b, &duals[b], nil, eta, false, set); err != nil {
							t.Fatal(err)
						}
					}
				}
				return D
			}
			want, got := run(true), run(false)
			if mat.Equal(want, D0) {
				t.Fatal("the passes left D unchanged")
			}
			if !mat.Equal(got, want) {
				t.Errorf("NoWoodburyInverse %v: reused workspaces differ from fresh ones by %g", noInverse, toy.MaxAbsDiff(got, want))
			}
		}()
	}
}
