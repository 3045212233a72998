package fisher

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/lrsdl/lrsdl/blas"
	"github.com/lrsdl/lrsdl/methods/internal/dl"
	"github.com/lrsdl/lrsdl/methods/internal/toy"
	"gonum.org/v1/gonum/mat"
)

// smallTrain returns a training state with random dictionaries and codes.
func smallTrain(t *testing.T, p Params, C, n, d int, seed uint64) *train {
	t.Helper()
	Y, labels, _ := toy.Shared(C, n, d, seed)
	return trainOn(t, p, Y, labels)
}

// trainOn returns the training state newTrain starts from on Y and labels.
func trainOn(t testing.TB, p Params, Y mat.Matrix, labels []int) *train {
	t.Helper()
	Ys, g, err := dl.TrainingSet(Y, labels)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := newTrain(context.Background(), p, dl.Settings{}, Ys, g.Part)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// TestLRSDLStepsLowerCost checks that each of the X, D and D0 steps does not
// increase J̄, that every update changes its variables, for E- and O- variants.
func TestLRSDLStepsLowerCost(t *testing.T) {
	ctx := context.Background()
	for _, orig := range []bool{false, true} {
		p := testParams()
		p.OrigX, p.OrigD = orig, orig
		tr := smallTrain(t, p, 3, 8, 20, 9)
		for it := 0; it < 3; it++ {
			steps := []struct {
				name string
				fn   func(context.Context) error
				v    *mat.Dense
			}{{"X", tr.stepX, tr.Xb}, {"D", tr.stepD, tr.D()}, {"D0", tr.stepD0, tr.D0()}}
			for _, st := range steps {
				before := tr.mustCost().Total
				old := mat.DenseCopyOf(st.v)
				if err := st.fn(ctx); err != nil {
					t.Fatal(err)
				}
				after := tr.mustCost().Total
				if after > before*(1+1e-12) {
					t.Errorf("orig=%v iter %d: step %s raised the cost from %v to %v", orig, it, st.name, before, after)
				}
				if mat.EqualApprox(old, st.v, 1e-12) {
					t.Errorf("orig=%v iter %d: step %s left its variable unchanged", orig, it, st.name)
				}
			}
		}
	}
}

// TestPhiMatchesCost checks phiD and phiD0, by which the nuclear-norm
// dictionary updates compare costs, against the full J̄: for random
// changes of D (with α > 0) and of D0, J̄ must change by exactly as much
// as φ.
func TestPhiMatchesCost(t *testing.T) {
	p := testParams()
	p.Eta, p.Alpha = 0.1, 0.05
	tr := smallTrain(t, p, 3, 8, 20, 9)
	if err := tr.stepX(context.Background()); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range []struct {
		name string
		v    *mat.Dense
		phi  func(D *mat.Dense) float64
	}{
		{"D", tr.D(), func(D *mat.Dense) float64 { E, F := tr.dProblem(); return tr.phiD(D, E, F) }},
		{"D0", tr.D0(), func(D *mat.Dense) float64 { E, F := tr.d0Problem(); return tr.phiD0(D, E, F) }},
	} {
		for trial := 0; trial < 3; trial++ {
			old := mat.DenseCopyOf(c.v)
			j0, f0 := tr.mustCost().Total, c.phi(c.v)
			r, k := c.v.Dims()
			for i := 0; i < r; i++ {
				for j := 0; j < k; j++ {
					c.v.Set(i, j, c.v.At(i, j)+0.1*rng.NormFloat64())
				}
			}
			dj, df := tr.mustCost().Total-j0, c.phi(c.v)-f0
			if math.Abs(dj-df) > 1e-9*math.Max(math.Abs(dj), j0) || dj == 0 {
				t.Errorf("%s trial %d: J̄ changed by %v, φ by %v", c.name, trial, dj, df)
			}
			c.v.Copy(old)
		}
	}
}

// TestDProblemProducts checks E = Ȳ·M(X)ᵀ and F = M(XXᵀ) of dProblem, and
// E = (Y − ½D·M(X))·X0ᵀ and F = X0X0ᵀ of d0Problem (the sparse kernel's
// products), against the dense formulas, at the sparse codes of the
// initialisation and at dense codes (the Gemm path).
func TestDProblemProducts(t *testing.T) {
	tr := smallTrain(t, testParams(), 3, 8, 20, 9)
	for _, dense := range []bool{false, true} {
		if dense {
			for i := range tr.Xb.RawMatrix().Data {
				tr.Xb.RawMatrix().Data[i] += 0.1 * float64(i%7+1)
			}
		}
		E, F := tr.dProblem()
		var wantE, wantF mat.Dense
		wantE.Mul(tr.ybar(), tr.mx().T())
		wantF.Mul(tr.X(), tr.X().T())
		blas.DoubleDiagBlocks(wantF.RawMatrix(), tr.ap, tr.ap)
		if !mat.EqualApprox(E, &wantE, 1e-12) || !mat.EqualApprox(F, &wantF, 1e-12) {
			t.Errorf("dense=%v: E off by %g, F off by %g", dense, toy.MaxAbsDiff(E, &wantE), toy.MaxAbsDiff(F, &wantF))
		}
		if !mat.Equal(F, F.T()) {
			t.Errorf("dense=%v: F is not symmetric", dense)
		}
		E0, F0 := tr.d0Problem()
		var V, wantE0, wantF0 mat.Dense
		V.Mul(tr.D(), tr.mx())
		V.Scale(-0.5, &V)
		V.Add(&V, tr.Y)
		wantE0.Mul(&V, tr.X0().T())
		wantF0.Mul(tr.X0(), tr.X0().T())
		if !mat.EqualApprox(E0, &wantE0, 1e-12) || !mat.EqualApprox(F0, &wantF0, 1e-12) {
			t.Errorf("dense=%v: E0 off by %g, F0 off by %g", dense, toy.MaxAbsDiff(E0, &wantE0), toy.MaxAbsDiff(F0, &wantF0))
		}
		if !mat.Equal(F0, F0.T()) {
			t.Errorf("dense=%v: F0 is not symmetric", dense)
		}
	}
}
