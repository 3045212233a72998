package incoherent

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/lrsdl/lrsdl/core"
	"github.com/lrsdl/lrsdl/internal/testutil"
	"github.com/lrsdl/lrsdl/methods/internal/dl"
	"github.com/lrsdl/lrsdl/methods/internal/toy"
	"gonum.org/v1/gonum/mat"
)

// dlsiSubproblem returns a random instance of problem (P) with ka other
// atoms A.
func dlsiSubproblem(seed uint64, d, k, n, ka int) (D, E, F, A *mat.Dense) {
	rng := rand.New(rand.NewPCG(seed, 2))
	Y := testutil.RandDense(rng, d, n)
	X := testutil.RandDense(rng, k, n)
	X.Scale(0.3, X)
	A = testutil.RandUnitCols(rng, d, ka)
	D = testutil.RandUnitCols(rng, d, k)
	E, F = new(mat.Dense), new(mat.Dense)
	E.Mul(Y, X.T())
	F.Mul(X, X.T())
	return D, E, F, A
}

// TestDLSIDictOriginalVsEfficient solves the same instances of (P) with
// O-DLSI-D and E-DLSI-D: both must lower the objective and agree to well
// within 1 %; and no feasible perturbation of either answer may do better.
// Seed 3 has more other atoms than dimensions (E- through the d×d inverse,
// not Woodbury's identity).
func TestDLSIDictOriginalVsEfficient(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		for _, eta := range []float64{0.1, 2} {
			ka := 10
			if seed == 3 {
				ka = 20
			}
			D, E, F, AtA := dlsiSubproblem(seed, 15, 5, 30, ka)
			start := Objective(D, E, F, AtA, eta)
			Do, De := mat.DenseCopyOf(D), mat.DenseCopyOf(D)
			if err := Update(context.Background(), Do, E, F, AtA, eta, true, dl.Settings{}); err != nil {
				t.Fatal(err)
			}
			if err := Update(context.Background(), De, E, F, AtA, eta, false, dl.Settings{}); err != nil {
				t.Fatal(err)
			}
			fo := Objective(Do, E, F, AtA, eta)
			fe := Objective(De, E, F, AtA, eta)
			if !(fo < start && fe < start) {
				t.Errorf("seed %d η=%v: objective %v -> O %v, E %v", seed, eta, start, fo, fe)
			}
			if math.Abs(fo-fe) > 1e-3*math.Abs(fo) {
				t.Errorf("seed %d η=%v: O-DLSI-D %v and E-DLSI-D %v differ", seed, eta, fo, fe)
			}
			// Local optimality of the O- answer: random feasible moves only
			// increase the objective (the problem is convex).
			rng := rand.New(rand.NewPCG(seed, 3))
			for trial := 0; trial < 20; trial++ {
				P := mat.DenseCopyOf(Do)
				for j := 0; j < 5; j++ {
					for i := 0; i < 15; i++ {
						P.Set(i, j, P.At(i, j)+1e-3*rng.NormFloat64())
					}
					if n := mat.Norm(P.ColView(j), 2); n > 1 {
						for i := 0; i < 15; i++ {
							P.Set(i, j, P.At(i, j)/n)
						}
					}
				}
				if fp := Objective(P, E, F, AtA, eta); fp < fo-1e-9*math.Abs(fo) {
					t.Errorf("seed %d η=%v: perturbed O answer %v beats %v", seed, eta, fp, fo)
					break
				}
			}
		}
	}
}

// TestDLSIWoodburyInverseVsSolve checks that E-DLSI-D gives the same
// dictionary with the Woodbury matrix inverted and with Cholesky solves.
func TestDLSIWoodburyInverseVsSolve(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		D, E, F, A := dlsiSubproblem(seed, 30, 5, 30, 12)
		Di, Ds := mat.DenseCopyOf(D), mat.DenseCopyOf(D)
		if err := Update(context.Background(), Di, E, F, A, 0.5, false, dl.Settings{}); err != nil {
			t.Fatal(err)
		}
		if err := Update(context.Background(), Ds, E, F, A, 0.5, false, dl.Settings{NoWoodburyInverse: true}); err != nil {
			t.Fatal(err)
		}
		if !mat.EqualApprox(Di, Ds, 1e-9) {
			t.Errorf("seed %d: inverse and solves differ by %g", seed, toy.MaxAbsDiff(Di, Ds))
		}
		if mat.Equal(Di, D) {
			t.Errorf("seed %d: E-DLSI-D left D unchanged", seed)
		}
	}
}

// TestBlockGram checks that Gram gives AᵀA of the atoms outside each
// block and ‖AᵀD_b‖², as formed directly, while the blocks change one at a
// time.
func TestBlockGram(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	part := core.Partition{0, 3, 7, 7, 12}
	D := testutil.RandDense(rng, 9, 12)
	var g Gram
	g.Init(D)
	for b := 0; b < part.Blocks(); b++ {
		A := OtherAtoms(D, part, b)
		_, r := A.Dims()
		want := mat.NewSymDense(r, nil)
		want.SymOuterK(1, A.T())
		if got := g.others(part, b); !mat.EqualApprox(got, want, 1e-12) {
			t.Errorf("block %d: AᵀA from G differs", b)
		}
		lo, hi := part.Block(b)
		off := 0.0
		if hi > lo {
			var ad mat.Dense
			ad.Mul(A.T(), D.Slice(0, 9, lo, hi))
			off = core.Dot(&ad, &ad)
		}
		if got := g.OffBlockSq(part, b); math.Abs(got-off) > 1e-12*off {
			t.Errorf("block %d: ‖AᵀD_b‖² from G %v, want %v", b, got, off)
		}
		for j := lo; j < hi; j++ {
			for i := 0; i < 9; i++ {
				D.Set(i, j, rng.NormFloat64())
			}
		}
		g.refresh(D, part, b)
	}
	var G mat.Dense
	G.Mul(D.T(), D)
	if !mat.EqualApprox(&g.G, &G, 1e-12) {
		t.Error("G after the refreshes differs from DᵀD")
	}
}

// TestIncoherentInverse checks the Woodbury updates of Inverse
// against (ρI + 2ηAAᵀ)⁻¹ formed from scratch for every block, with each
// block changed after its turn as a pass of DLSI-D changes it, and an
// empty block as COPAR may have.
func TestIncoherentInverse(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const d, rho, eta = 9, 0.7, 0.3
	part := core.Partition{0, 3, 6, 6, 9, 11}
	D := mat.NewDense(d, part.Len(), nil)
	for i := range D.RawMatrix().Data {
		D.RawMatrix().Data[i] = rng.NormFloat64()
	}
	var s Inverse
	if !s.Init(D, part, rho, eta) {
		t.Fatal("init failed")
	}
	for b := 0; b < part.Blocks(); b++ {
		M := mat.NewSymDense(d, nil)
		M.SymOuterK(2*eta, OtherAtoms(D, part, b))
		for i := 0; i < d; i++ {
			M.SetSym(i, i, M.At(i, i)+rho)
		}
		var want mat.Dense
		if err := want.Inverse(M); err != nil {
			t.Fatal(err)
		}
		if !mat.EqualApprox(&s.N, &want, 1e-12) {
			var diff mat.Dense
			diff.Sub(&s.N, &want)
			t.Fatalf("block %d: N differs from the direct inverse by %g", b, mat.Norm(&diff, math.Inf(1)))
		}
		lo, hi := part.Block(b)
		for j := lo; j < hi; j++ {
			for i := 0; i < d; i++ {
				D.Set(i, j, rng.NormFloat64())
			}
		}
		if b+1 < part.Blocks() && !s.Next(D, part) {
			t.Fatalf("next after block %d failed", b)
		}
	}
}
