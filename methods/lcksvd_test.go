package methods

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/core"
	"github.com/lrsdl/lrsdl/internal/testutil"
	"github.com/lrsdl/lrsdl/methods/internal/dl"
)

func TestLCKSVDCostNonIncreasing(t *testing.T) {
	Y, l := blRandom(7, 12, 3, 20)
	for _, m := range []lrsdl.Classifier{
		&LCKSVD1{Options: LCKSVDOptions{K: 4, Sparsity: 3, Alpha: 0.5, Iters: 12}},
		&LCKSVD2{Options: LCKSVDOptions{K: 4, Sparsity: 3, Alpha: 0.5, Beta: 0.5, Iters: 12}},
	} {
		var costs []lrsdl.Cost
		m.(lrsdl.Configurable).SetProgress(func(p lrsdl.Progress) { costs = append(costs, p.Cost) })
		if err := m.Fit(context.Background(), Y, l); err != nil {
			t.Fatal(err)
		}
		if len(costs) != 12 {
			t.Fatalf("%s: %d progress calls, want 12", m.Name(), len(costs))
		}
		wantTerms := 2
		if _, ok := m.(*LCKSVD2); ok {
			wantTerms = 3
		}
		for i, c := range costs {
			if len(c.Terms) != wantTerms || c.Term("label") <= 0 {
				t.Fatalf("%s: iteration %d cost terms %+v", m.Name(), i+1, c.Terms)
			}
			if i > 0 && c.Total > costs[i-1].Total*(1+1e-12) {
				t.Errorf("%s: cost rose from %.12g to %.12g at iteration %d", m.Name(), costs[i-1].Total, c.Total, i+1)
			}
		}
		if costs[len(costs)-1].Total >= costs[0].Total {
			t.Errorf("%s: cost did not decrease: %g → %g", m.Name(), costs[0].Total, costs[len(costs)-1].Total)
		}
		c, err := m.(interface {
			Cost(mat.Matrix, []int) (lrsdl.Cost, error)
		}).Cost(Y, l)
		if err != nil {
			t.Fatal(err)
		}
		// Fresh OMP codes at the learned model: near the last training cost.
		if last := costs[len(costs)-1].Total; len(c.Terms) != wantTerms || c.Total > 1.5*last || c.Total < last/1.5 {
			t.Errorf("%s: Cost %+v, last training cost %g", m.Name(), c, last)
		}
	}
}

func TestLCKSVDBadInput(t *testing.T) {
	blBadInput(t, func() lrsdl.Classifier { return &LCKSVD2{Options: LCKSVDOptions{K: 3, Sparsity: 2, Iters: 2}} })
	Y, l := blRandom(1, 8, 2, 5)
	if err := (&LCKSVD1{}).Fit(context.Background(), Y, l); err == nil {
		t.Error("5 samples per class for k=25 atoms: no error")
	}
	if err := (&LCKSVD1{Options: LCKSVDOptions{K: 2, Sparsity: 5}}).Fit(context.Background(), Y, l); err == nil {
		t.Error("sparsity above the number of atoms: no error")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := (&LCKSVD2{Options: LCKSVDOptions{K: 2, Sparsity: 2}}).Fit(ctx, Y, l); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled Fit: %v", err)
	}
}

func TestLCKSVDSynthetic(t *testing.T) {
	Ytr, ltr, Yte, lte := blSynthetic(t)
	// Measured 84.25 and 85.75 % (gonum), 87.75 and 85.75 % (openblas);
	// chance: 25 %.
	blFitPredict(t, &LCKSVD1{Options: LCKSVDOptions{K: 10, Sparsity: 5}}, Ytr, ltr, Yte, lte, 70)
	blFitPredict(t, &LCKSVD2{Options: LCKSVDOptions{K: 10, Sparsity: 5}}, Ytr, ltr, Yte, lte, 70)
}

func TestLCKSVDArgender(t *testing.T) {
	if testing.Short() {
		t.Skip("argender in -short mode")
	}
	Ytr, ltr, Yte, lte := blArgender(t)
	testutil.Backends(t, func(t *testing.T) {
		// Measured 89.14 / 88.57 % (gonum) and 91.29 / 89.43 % (openblas);
		// paper: 88.42 / 90.14 %.
		blFitPredict(t, &LCKSVD1{}, Ytr, ltr, Yte, lte, 86)
		blFitPredict(t, &LCKSVD2{}, Ytr, ltr, Yte, lte, 86)
	})
}

func BenchmarkLCKSVD2Fit_d300_N500_k25_T20_iters5(b *testing.B) {
	Y, l := blRandom(1, 300, 2, 250)
	for i := 0; i < b.N; i++ {
		m := &LCKSVD2{Options: LCKSVDOptions{Iters: 5, InitIters: 2}}
		if err := m.Fit(context.Background(), Y, l); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLCKSVD2Predict_d300_K50_T20_n700(b *testing.B) {
	Y, l := blRandom(1, 300, 2, 350)
	m := &LCKSVD2{Options: LCKSVDOptions{Iters: 2, InitIters: 1}}
	if err := m.Fit(context.Background(), Y, l); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := m.Predict(Y); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(700*b.N)/b.Elapsed().Seconds(), "samples/s")
}

// TestBaselinesSeed checks that one seed gives the same dictionary on
// every run and another seed a different one.
func TestBaselinesSeed(t *testing.T) {
	Y, l := blRandom(12, 10, 2, 20)
	type atomer interface {
		lrsdl.Classifier
		Atoms() (*mat.Dense, core.Partition, *mat.Dense)
	}
	for _, newM := range []func(seed uint64) atomer{
		func(s uint64) atomer { return &ODL{Options: ODLOptions{K: 4, Iters: 3, Seed: s}} },
		func(s uint64) atomer { return &LCKSVD1{Options: LCKSVDOptions{K: 4, Sparsity: 2, Iters: 3, Seed: s}} },
		func(s uint64) atomer { return &LCKSVD2{Options: LCKSVDOptions{K: 4, Sparsity: 2, Iters: 3, Seed: s}} },
	} {
		var Ds []*mat.Dense
		for _, s := range []uint64{5, 5, 6} {
			m := newM(s)
			if err := m.Fit(context.Background(), Y, l); err != nil {
				t.Fatal(err)
			}
			D, _, _ := m.Atoms()
			Ds = append(Ds, D)
		}
		if !mat.Equal(Ds[0], Ds[1]) {
			t.Errorf("%s: same seed, different dictionaries", newM(0).Name())
		}
		if mat.EqualApprox(Ds[0], Ds[2], 1e-6) {
			t.Errorf("%s: seeds 5 and 6 give the same dictionary", newM(0).Name())
		}
	}
}

func TestLCRidgeNormalEquations(t *testing.T) {
	Y, _ := blRandom(13, 6, 2, 10) // use as codes X (6×20)
	T := mat.NewDense(3, 20, nil)
	for j := 0; j < 20; j++ {
		T.Set(j%3, j, 1)
	}
	const rho = 0.7
	W, err := lcRidge(T, Y, rho)
	if err != nil {
		t.Fatal(err)
	}
	// W(XXᵀ + ρI) = T·Xᵀ
	var S, lhs, rhs mat.Dense
	S.Mul(Y, Y.T())
	for i := 0; i < 6; i++ {
		S.Set(i, i, S.At(i, i)+rho)
	}
	lhs.Mul(W, &S)
	rhs.Mul(T, Y.T())
	if !mat.EqualApprox(&lhs, &rhs, 1e-10) {
		t.Errorf("ridge solution violates the normal equations")
	}
	if _, err := lcRidge(T, mat.NewDense(6, 20, nil), 0); err == nil {
		t.Error("singular ridge without regularisation: no error")
	}
}

// TestLCDtYMatchesDense checks the structured product of lcDtY against the
// dense GᵀYs of the stacked data [Y; c₁·H; c₂·H].
func TestLCDtYMatchesDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	const d, C, k = 7, 3, 2
	labels := []int{2, 0, 1, 1, 0, 2, 2, 0}
	g, err := core.GroupByClass(labels)
	if err != nil {
		t.Fatal(err)
	}
	N, K := len(labels), C*k
	ap := dl.BlockPartition(C, k)
	_, H := lcTargets(g.Part, ap, g.Class, g.Perm)
	cls := make([]int, N)
	for j, p := range g.Perm {
		cls[j] = g.Class[p]
	}
	for nb := 0; nb <= 2; nb++ {
		Y := testutil.RandDense(rng, d, N)
		targets, weights, coef := []*mat.Dense{Y}, []float64{1}, []float64{1}
		for b := 0; b < nb; b++ {
			w := 0.3 + 0.4*float64(b)
			targets, weights, coef = append(targets, H), append(weights, w), append(coef, math.Sqrt(w))
		}
		Ysk := lcStack(targets, weights)
		rows := lcRows(targets)
		G := testutil.RandDense(rng, rows[len(rows)-1], K)
		var want mat.Dense
		want.Mul(G.T(), Ysk)
		got := mat.NewDense(K, N, nil)
		lcDtY(Y, rows, coef, cls)(got, G)
		if !mat.EqualApprox(got, &want, 1e-12) {
			t.Errorf("%d label blocks: structured GᵀYs differs from the dense product", nb)
		}
	}
}

// TestLCKSVDReducedLabelBlock checks that K-SVD on the stack with the
// label block in the basis P/√k of range(P), [Y; √α·√k·H; √β·H] against
// [D; √α·√k·W₀; √β·W], gives the atoms and codes of K-SVD on the full
// stack [Y; √α·Q; √β·H] against [D; √α·P·W₀; √β·W] (the LC-KSVD
// objective as written), with A = P·(label block)/(√α·√k).
func TestLCKSVDReducedLabelBlock(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 44))
	const d, C, k, T, iters = 9, 3, 3, 3, 6
	const alpha, beta = 0.4, 0.3
	labels := make([]int, 24)
	for i := range labels {
		labels[i] = (i * 7) % C
	}
	g, err := core.GroupByClass(labels)
	if err != nil {
		t.Fatal(err)
	}
	N, K := len(labels), C*k
	ap := dl.BlockPartition(C, k)
	Q, H := lcTargets(g.Part, ap, g.Class, g.Perm)
	Y := testutil.RandDense(rng, d, N)
	D := testutil.RandDense(rng, d, K)
	W0 := testutil.RandDense(rng, C, K)
	W := testutil.RandDense(rng, C, K)
	sk := math.Sqrt(k)
	Ar := mat.NewDense(C, K, nil)
	Ar.Scale(sk, W0)
	Hk := mat.NewDense(C, N, nil)
	Hk.Scale(sk, H)
	w := []float64{1, alpha, beta}
	Gf := lcStack([]*mat.Dense{D, lcExpand(W0, ap, 1), W}, w)
	Yf := lcStack([]*mat.Dense{Y, Q, H}, w)
	Gr := lcStack([]*mat.Dense{D, Ar, W}, w)
	Yr := lcStack([]*mat.Dense{Y, Hk, H}, w)
	Xf, err := core.KSVD(context.Background(), Gf, Yf, T, iters, core.KSVDOptions{})
	if err != nil {
		t.Fatal(err)
	}
	Xr, err := core.KSVD(context.Background(), Gr, Yr, T, iters, core.KSVDOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !mat.EqualApprox(Xf, Xr, 1e-9) {
		t.Errorf("codes differ")
	}
	if !mat.EqualApprox(Gf.Slice(0, d, 0, K), Gr.Slice(0, d, 0, K), 1e-9) {
		t.Errorf("D differs")
	}
	Af := Gf.Slice(d, d+K, 0, K)
	Ab := lcExpand(Gr.Slice(d, d+C, 0, K).(*mat.Dense), ap, 1/sk)
	if !mat.EqualApprox(Af, Ab, 1e-9) {
		t.Errorf("A differs:\n%v\n%v", mat.Formatted(Af), mat.Formatted(Ab))
	}
	if !mat.EqualApprox(Gf.Slice(d+K, d+K+C, 0, K), Gr.Slice(d+C, d+2*C, 0, K), 1e-9) {
		t.Errorf("W differs")
	}
	// The label terms agree too.
	cf := lcCost(Yf, Gf, Xf, []int{0, d, d + K, d + K + C}, []string{"fidelity", "label", "classification"})
	cr := lcCost(Yr, Gr, Xr, []int{0, d, d + C, d + 2*C}, []string{"fidelity", "label", "classification"})
	for i := range cf.Terms {
		if a, b := cf.Terms[i].Value, cr.Terms[i].Value; math.Abs(a-b) > 1e-9*math.Abs(a) {
			t.Errorf("%s term %g, reduced %g", cf.Terms[i].Name, a, b)
		}
	}
}
