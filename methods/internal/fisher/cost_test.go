package fisher

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/core"
)

// directFidelity returns ½f̄ of totalCost from the residuals themselves.
func directFidelity(Y *mat.Dense, sp, ap core.Partition, Db, Xb *mat.Dense) float64 {
	d, N := Y.Dims()
	K := ap.Len()
	kb, _ := Xb.Dims()
	var fid float64
	for c := 0; c < sp.Blocks(); c++ {
		s0, s1 := sp.Block(c)
		Yc, Xc := Y.Slice(0, d, s0, s1), Xb.Slice(0, kb, s0, s1).(*mat.Dense)
		var R, R2 mat.Dense
		R.Mul(Db, Xc)
		R.Sub(Yc, &R)
		fid += mat.Norm(&R, 2) * mat.Norm(&R, 2)
		R2.CloneFrom(Yc)
		for j := 0; j < ap.Blocks(); j++ {
			a0, a1 := ap.Block(j)
			var P mat.Dense
			P.Mul(Db.Slice(0, d, a0, a1), Xc.Slice(a0, a1, 0, s1-s0))
			if j == c {
				R2.Sub(&R2, &P)
			} else {
				fid += mat.Norm(&P, 2) * mat.Norm(&P, 2)
			}
		}
		if kb > K {
			var P mat.Dense
			P.Mul(Db.Slice(0, d, K, kb), Xc.Slice(K, kb, 0, s1-s0))
			R2.Sub(&R2, &P)
		}
		fid += mat.Norm(&R2, 2) * mat.Norm(&R2, 2)
	}
	_ = N
	return fid / 2
}

// TestLRSDLCostFidelity checks the Gram form of the fidelity against the
// residuals, with and without shared atoms, and that the cached products
// follow changes of D̄.
func TestLRSDLCostFidelity(t *testing.T) {
	for _, k0 := range []int{0, 3} {
		p := testParams()
		p.K0 = k0
		tr := smallTrain(t, p, 3, 6, 15, 4)
		rng := rand.New(rand.NewPCG(5, uint64(k0)))
		for rep := 0; rep < 2; rep++ {
			for _, m := range []*mat.Dense{tr.Xb, tr.Db} {
				raw := m.RawMatrix().Data
				for i := range raw {
					raw[i] = rng.NormFloat64()
				}
			}
			got := tr.mustCost().Term("fidelity")
			want := directFidelity(tr.Y, tr.sp, tr.ap, tr.Db, tr.Xb)
			if math.Abs(got-want) > 1e-12*want {
				t.Errorf("k0=%d rep %d: fidelity %v, direct %v", k0, rep, got, want)
			}
		}
	}
}

// mustCost is train.cost with a context never cancelled.
func (t *train) mustCost() lrsdl.Cost {
	c, err := t.cost(context.Background())
	if err != nil {
		panic(err)
	}
	return c
}

// mustCurrent is train.current with a context never cancelled.
func (t *train) mustCurrent() lrsdl.Cost {
	c, err := t.current(context.Background())
	if err != nil {
		panic(err)
	}
	return c
}

// mustCost is dlrdTrain.cost with a context never cancelled.
func (s *dlrdTrain) mustCost() lrsdl.Cost {
	c, err := s.cost(context.Background())
	if err != nil {
		panic(err)
	}
	return c
}
