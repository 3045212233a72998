package methods

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/internal/testutil"
)

func TestODLCostNonIncreasing(t *testing.T) {
	Y, l := blRandom(8, 10, 3, 15)
	var costs []lrsdl.Cost
	m := &ODL{Options: ODLOptions{K: 5, Lambda: 0.05, Iters: 10, Progress: func(p lrsdl.Progress) { costs = append(costs, p.Cost) }}}
	if err := m.Fit(context.Background(), Y, l); err != nil {
		t.Fatal(err)
	}
	if len(costs) != 10 {
		t.Fatalf("%d progress calls, want 10", len(costs))
	}
	for i := 1; i < len(costs); i++ {
		if costs[i].Total > costs[i-1].Total*(1+1e-12) {
			t.Errorf("cost rose from %.12g to %.12g at iteration %d", costs[i-1].Total, costs[i].Total, i+1)
		}
	}
	if costs[9].Total >= 0.9*costs[0].Total {
		t.Errorf("cost barely decreased: %g → %g", costs[0].Total, costs[9].Total)
	}
	c, err := m.Cost(Y, l)
	if err != nil {
		t.Fatal(err)
	}
	// Re-coding at the learned dictionaries can only match or improve the
	// codes left by training (both are lasso solutions up to tolerance).
	if last := costs[9].Total; c.Total > last*(1+1e-3) || math.Abs(c.Term("fidelity")+c.Term("l1")-c.Total) > 1e-12 {
		t.Errorf("Cost %+v, last training cost %g", c, last)
	}
	D, part, D0 := m.Atoms()
	if _, k := D.Dims(); k != 15 || part.Blocks() != 3 || D0 != nil {
		t.Errorf("Atoms: %d atoms, %d blocks, D0 %v", k, part.Blocks(), D0)
	}
	for j := 0; j < 15; j++ {
		if n := mat.Norm(D.ColView(j), 2); n > 1+1e-12 {
			t.Errorf("atom %d has norm %g > 1", j, n)
		}
	}
}

func TestODLLearnTransform(t *testing.T) {
	Y, _ := blRandom(9, 10, 2, 20)
	m := &ODL{Options: ODLOptions{K: 6, Lambda: 0.01, Iters: 5, NoNormalize: true}}
	if err := m.Learn(context.Background(), Y); err != nil {
		t.Fatal(err)
	}
	X, err := m.Transform(Y)
	if err != nil {
		t.Fatal(err)
	}
	if r, c := X.Dims(); r != 6 || c != 40 {
		t.Fatalf("codes %d×%d, want 6×40", r, c)
	}
	// The codes solve the lasso: X = S_λ(X − Dᵀ(DX − Y)) at a fixed point,
	// so |dᵢᵀ(y − Dx)| ≤ λ(1+tol) everywhere.
	D, _, _ := m.Atoms()
	var R, C mat.Dense
	R.Mul(D, X)
	R.Sub(Y, &R)
	C.Mul(D.T(), &R)
	var v float64
	for _, x := range C.RawMatrix().Data {
		v = math.Max(v, math.Abs(x))
	}
	if v > 0.01*1.01 {
		t.Errorf("lasso optimality violated: max |Dᵀr| = %g > λ", v)
	}
	if _, err := m.Predict(Y); err == nil || !strings.Contains(err.Error(), "without labels") {
		t.Errorf("Predict after Learn: %v", err)
	}
	s, err := m.State()
	if err != nil {
		t.Fatal(err)
	}
	var m2 ODL
	if err := m2.SetState(s); err != nil {
		t.Fatal(err)
	}
	X2, err := m2.Transform(Y)
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(X, X2) {
		t.Error("restored unsupervised model transforms differently")
	}
}

func TestODLBadInput(t *testing.T) {
	blBadInput(t, func() lrsdl.Classifier { return &ODL{Options: ODLOptions{K: 4, Iters: 2}} })
	Y, l := blRandom(1, 8, 2, 5)
	if err := (&ODL{Options: ODLOptions{K: 25}}).Fit(context.Background(), Y, l); err == nil {
		t.Error("5 samples per class for k=25 atoms: no error")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := (&ODL{Options: ODLOptions{K: 2}}).Fit(ctx, Y, l); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled Fit: %v", err)
	}
}

func TestODLSynthetic(t *testing.T) {
	Ytr, ltr, Yte, lte := blSynthetic(t)
	blFitPredict(t, &ODL{Options: ODLOptions{K: 10}}, Ytr, ltr, Yte, lte, 70) // measured 92.25 (chance: 25)
}

func TestODLArgender(t *testing.T) {
	if testing.Short() {
		t.Skip("argender in -short mode")
	}
	Ytr, ltr, Yte, lte := blArgender(t)
	testutil.Backends(t, func(t *testing.T) {
		blFitPredict(t, &ODL{}, Ytr, ltr, Yte, lte, 88) // measured 91.29 on both backends
	})
}

func TestODLBackendParity(t *testing.T) {
	Y, l := blRandom(14, 12, 2, 20)
	var ref *mat.Dense
	testutil.Backends(t, func(t *testing.T) {
		m := &ODL{Options: ODLOptions{K: 4, Lambda: 0.05, Iters: 5}}
		if err := m.Fit(context.Background(), Y, l); err != nil {
			t.Fatal(err)
		}
		D, _, _ := m.Atoms()
		if ref == nil {
			ref = D
		} else if !mat.EqualApprox(D, ref, 1e-6) {
			t.Error("ODL dictionaries differ between backends")
		}
	})
}
