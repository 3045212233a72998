package core

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestL21Prox checks the ℓ2,1 proximal operator against its optimality
// conditions: for e_j ≠ 0, e_j − a_j + τe_j/‖e_j‖ = 0; for e_j = 0,
// ‖a_j‖ ≤ τ; and that it lowers the objective against random perturbations.
func TestL21Prox(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const tau = 1.5
	A := mat.NewDense(4, 30, nil)
	for i := 0; i < 4; i++ {
		for j := 0; j < 30; j++ {
			A.Set(i, j, rng.NormFloat64())
		}
	}
	var E mat.Dense
	L21Prox(&E, A, tau)
	obj := func(E *mat.Dense) float64 {
		var d mat.Dense
		d.Sub(E, A)
		n := mat.Norm(&d, 2)
		return tau*L21(E) + n*n/2
	}
	zero, kept := 0, 0
	for j := 0; j < 30; j++ {
		e, a := E.ColView(j), A.ColView(j)
		ne, na := mat.Norm(e, 2), mat.Norm(a, 2)
		if ne == 0 {
			zero++
			if na > tau {
				t.Errorf("column %d zeroed with ‖a‖ = %v > τ", j, na)
			}
			continue
		}
		kept++
		for i := 0; i < 4; i++ {
			if g := e.AtVec(i) - a.AtVec(i) + tau*e.AtVec(i)/ne; math.Abs(g) > 1e-12 {
				t.Errorf("column %d row %d: gradient %v, want 0", j, i, g)
			}
		}
	}
	if zero == 0 || kept == 0 {
		t.Fatalf("%d zero and %d kept columns: the test checks one case only", zero, kept)
	}
	best := obj(&E)
	for k := 0; k < 100; k++ {
		P := mat.DenseCopyOf(&E)
		i, j := rng.IntN(4), rng.IntN(30)
		P.Set(i, j, P.At(i, j)+0.01*rng.NormFloat64())
		if obj(P) < best-1e-12 {
			t.Fatalf("a perturbation lowers the objective: %v < %v", obj(P), best)
		}
	}
	L21Prox(A, A, tau) // in place
	if !mat.Equal(A, &E) {
		t.Error("in-place result differs")
	}
}
