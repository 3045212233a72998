package fisher

import (
	"testing"
)

// fddlParams returns the parameters package methods resolves for FDDL's
// options with k atoms per class and Fisher weight lambda2, the others at
// their defaults.
func fddlParams(k int, lambda2 float64) Params {
	return Params{K: k, Lambda1: 0.01, Lambda2: lambda2, Iters: 30, Tol: 1e-4, XIters: 50, XTol: 1e-4,
		DIters: 5, InitIters: 5, W: 0.5, Lambda: 0.01}
}

// lrsdlParams is fddlParams for LRSDL with k0 shared atoms and nuclear
// weight eta.
func lrsdlParams(k, k0 int, lambda2, eta float64) Params {
	p := fddlParams(k, lambda2)
	p.K0, p.Eta, p.XIters, p.ADMMIters = k0, eta, 20, 20
	return p
}

// d2l2r2Params is fddlParams for D2L2R2 with nuclear weight alpha.
func d2l2r2Params(k int, lambda2, alpha float64) Params {
	p := fddlParams(k, lambda2)
	p.Alpha, p.ADMMIters = alpha, 2
	return p
}

// dlrdParams returns the parameters DLRD trains with for k atoms per
// class, ℓ1 weight lambda1, nuclear weight alpha, iters outer iterations
// and the seed.
func dlrdParams(k int, lambda1, alpha float64, iters int, seed uint64) Params {
	return Params{K: k, Lambda1: lambda1, Alpha: alpha, Iters: iters, XIters: 50, XTol: 1e-4,
		DIters: 20, ADMMIters: 2, InitIters: 5, W: 1, Lambda: lambda1, Seed: seed}
}

// testParams are LRSDL's parameters of the small tests: k = 4, k0 = 3,
// λ2 = 0.05 and 2 initial ODL alternations.
func testParams() Params {
	p := lrsdlParams(4, 3, 0.05, 0.1)
	p.InitIters = 2
	return p
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
