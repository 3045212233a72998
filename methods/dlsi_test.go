package methods

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/blas"
	"github.com/lrsdl/lrsdl/core"
	"github.com/lrsdl/lrsdl/data"
	"github.com/lrsdl/lrsdl/internal/testutil"
	"github.com/lrsdl/lrsdl/methods/internal/dl"
	"github.com/lrsdl/lrsdl/methods/internal/incoherent"
	"github.com/lrsdl/lrsdl/methods/internal/toy"
	"github.com/lrsdl/lrsdl/split"
)

// TestDLSIUpdatesLowerCost checks that DLSI-X and both DLSI-D algorithms
// never increase J.
func TestDLSIUpdatesLowerCost(t *testing.T) {
	for _, original := range []bool{false, true} {
		Ys, sp, part, D := toy.Classes(1, 3, 12, 15, 4)
		o := resolvedOpts(DLSIOptions{K: 4, Lambda: 0.05, Eta: 0.5})
		X := make([]*mat.Dense, 3)
		for c := range X {
			X[c] = mat.NewDense(4, 15, nil)
		}
		toy.CheckDescent(t, fmt.Sprint("original=", original), D, 0.9, func() float64 { return dlsiCost(D, part, X, Ys, sp, o).Total },
			func() error { return dlsiUpdateX(context.Background(), X, D, part, Ys, sp, o.Lambda) },
			func() error {
				return dlsiUpdateD(context.Background(), D, part, X, Ys, sp, nil, o.Eta, original, dl.Settings{})
			})
		if !original {
			// The last class block was updated last: no feasible move of it
			// may lower J (this checks the weight η of the D subproblem).
			lo, hi := part.Block(2)
			dlsiCheckBlockOptimal(t, D, lo, hi, func() float64 { return dlsiCost(D, part, X, Ys, sp, o).Total })
		}
	}
}

// dlsiCheckBlockOptimal checks the optimality conditions of J in the atoms
// lo..hi−1 of D under ‖d‖ ≤ 1, with the gradient g of J by central
// differences: g = −μd with μ ≥ 0 for an atom of norm 1, g = 0 inside,
// up to 1 % (ADMM stops early; a wrong weight η of the D step gives 5–60 %).
func dlsiCheckBlockOptimal(t *testing.T, D *mat.Dense, lo, hi int, J func() float64) {
	t.Helper()
	d, _ := D.Dims()
	const h = 1e-6
	g := make([]float64, d)
	for j := lo; j < hi; j++ {
		var gn, gd float64
		for i := 0; i < d; i++ {
			x := D.At(i, j)
			g[i] = testutil.CentralDiff(J, D, i, j, h)
			gn += g[i] * g[i]
			gd += g[i] * x
		}
		nd := mat.Norm(D.ColView(j), 2)
		var tang float64 // ‖g − (g·d)d/‖d‖²‖ on the sphere, ‖g‖ inside
		for i := 0; i < d; i++ {
			v := g[i]
			if nd > 1-1e-9 {
				v -= gd * D.At(i, j) / (nd * nd)
			}
			tang += v * v
		}
		if math.Sqrt(tang) > 1e-2*math.Max(1, math.Sqrt(gn)) || (nd > 1-1e-9 && gd > 1e-3) {
			t.Errorf("atom %d (norm %v): gradient of J not normal to the constraint: tangential %v, g·d = %v", j, nd, math.Sqrt(tang), gd)
		}
	}
}

// dlsiSynthetic returns the paper's simulated data, small: 4 classes.
func dlsiSynthetic(t testing.TB, size, perClass, train int) *data.Dataset {
	ds, _, err := data.SyntheticSplit(data.SyntheticOptions{Size: size, PerClass: perClass, Seed: 7}, train)
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

func dlsiAccuracy(t testing.TB, m lrsdl.Classifier, s split.Set) float64 {
	got, err := m.Predict(s.Y)
	if err != nil {
		t.Fatal(err)
	}
	ok := 0
	for i, l := range got {
		if l == s.Labels[i] {
			ok++
		}
	}
	return float64(ok) / float64(len(got))
}

// TestDLSISynthetic trains on the simulated data (4 classes, chance 25 %)
// with shuffled user labels, checks accuracy, progress and state round trip.
// O-DLSI-D runs on 10×10 instead of 20×20 images to keep the test short.
func TestDLSISynthetic(t *testing.T) {
	for _, original := range []bool{false, true} {
		size := 20
		if original {
			size = 10
		}
		testDLSISynthetic(t, size, original)
	}
}

func testDLSISynthetic(t *testing.T, size int, original bool) {
	ds := dlsiSynthetic(t, size, 120, 40)
	// User labels 10, 20, ... in shuffled sample order.
	labels := make([]int, len(ds.Train.Labels))
	for i, l := range ds.Train.Labels {
		labels[i] = 10 * (l + 1)
	}
	test := split.Set{Y: ds.Test.Y, Labels: make([]int, len(ds.Test.Labels))}
	for i, l := range ds.Test.Labels {
		test.Labels[i] = 10 * (l + 1)
	}
	{
		var costs []float64
		m := &DLSI{Options: DLSIOptions{K: 6, Lambda: 0.01, Eta: 0.05, Iters: 6, OriginalD: original, Seed: 3,
			Progress: func(p lrsdl.Progress) { costs = append(costs, p.Cost.Total) }}}
		if err := m.Fit(context.Background(), ds.Train.Y, labels); err != nil {
			t.Fatal(err)
		}
		dlsiCheckMonotone(t, fmt.Sprint("original=", original), costs, 6)
		acc := dlsiAccuracy(t, m, test)
		t.Logf("DLSI original=%v synthetic accuracy %.3f, cost %v", original, acc, costs[len(costs)-1])
		if acc < 0.85 {
			t.Errorf("original=%v: accuracy %.3f on 4-class synthetic data, want ≥ 0.85", original, acc)
		}
		c, err := m.Cost(ds.Train.Y, labels)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(c.Total-costs[len(costs)-1]) > 0.05*c.Total {
			t.Errorf("Cost %v far from the last training cost %v", c.Total, costs[len(costs)-1])
		}
		dlsiCheckRoundTrip(t, m, &DLSI{}, test.Y)
		dlsiCheckSparse(t, m, test.Y)
	}
}

// dlsiCheckMonotone checks that the training costs reported by Progress
// are n and never rise. Errors start with name.
func dlsiCheckMonotone(t *testing.T, name string, costs []float64, n int) {
	t.Helper()
	if len(costs) != n {
		t.Fatalf("%s: progress called %d times, want %d", name, len(costs), n)
	}
	for i := 1; i < len(costs); i++ {
		if costs[i] > costs[i-1]*(1+1e-9) {
			t.Errorf("%s: cost rose from %v to %v at iteration %d", name, costs[i-1], costs[i], i+1)
		}
	}
}

// dlsiCheckRoundTrip checks that a restored model predicts identical labels.
func dlsiCheckRoundTrip(t *testing.T, m lrsdl.Classifier, fresh lrsdl.Classifier, Y mat.Matrix) {
	t.Helper()
	want, err := m.Predict(Y)
	if err != nil {
		t.Fatal(err)
	}
	s, err := m.(lrsdl.Persistent).State()
	if err != nil {
		t.Fatal(err)
	}
	if err := fresh.(lrsdl.Persistent).SetState(s); err != nil {
		t.Fatal(err)
	}
	got, err := fresh.Predict(Y)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("restored model predicts %d for sample %d, original %d", got[i], i, want[i])
		}
	}
	s.Method = "nope"
	if err := fresh.(lrsdl.Persistent).SetState(s); err == nil {
		t.Error("SetState accepted a state of another method")
	}
}

// dlsiCheckSparse checks that a sparse copy of Y gets the same labels as Y
// (up to rounding in near ties).
func dlsiCheckSparse(t *testing.T, m lrsdl.Classifier, Y mat.Matrix) {
	t.Helper()
	S := data.Store(Y, 2)
	if _, dense := S.(*mat.Dense); dense {
		t.Fatal("data.Store did not return a sparse matrix")
	}
	want, err := m.Predict(Y)
	if err != nil {
		t.Fatal(err)
	}
	got, err := m.Predict(S)
	if err != nil {
		t.Fatal(err)
	}
	diff := 0
	for i := range want {
		if got[i] != want[i] {
			diff++
		}
	}
	if diff > len(want)/100 {
		t.Errorf("%d of %d labels differ between sparse and dense input", diff, len(want))
	}
}

// TestDLSIBadInput checks descriptive errors for bad input.
func TestDLSIBadInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	Y := testutil.RandDense(rng, 5, 8)
	labels := []int{1, 1, 1, 1, 2, 2, 2, 2}
	nan := mat.DenseCopyOf(Y)
	nan.Set(2, 3, math.NaN())
	cases := []struct {
		name   string
		m      *DLSI
		Y      mat.Matrix
		labels []int
		want   string
	}{
		{"label count", &DLSI{Options: DLSIOptions{K: 2}}, Y, labels[:7], "labels"},
		{"NaN", &DLSI{Options: DLSIOptions{K: 2}}, nan, labels, "non-finite"},
		{"too few samples", &DLSI{Options: DLSIOptions{K: 5}}, Y, labels, "k must be at most 4"},
		{"one class", &DLSI{Options: DLSIOptions{K: 2}}, Y, []int{1, 1, 1, 1, 1, 1, 1, 1}, "2 classes"},
		{"negative eta", &DLSI{Options: DLSIOptions{K: 2, Eta: -2}}, Y, labels, "eta=-2"},
	}
	for _, c := range cases {
		err := c.m.Fit(context.Background(), c.Y, c.labels)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one mentioning %q", c.name, err, c.want)
		}
	}
	var m DLSI
	if _, err := m.Predict(Y); err == nil {
		t.Error("untrained Predict succeeded")
	}
	m.Options = DLSIOptions{K: 2, Iters: 2}
	if err := m.Fit(context.Background(), Y, labels); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Predict(mat.NewDense(4, 2, nil)); err == nil {
		t.Error("Predict accepted data of the wrong dimension")
	}
	if _, err := m.Cost(Y, []int{1, 1, 1, 1, 2, 2, 2, 3}); err == nil {
		t.Error("Cost accepted an unknown label")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := (&DLSI{Options: DLSIOptions{K: 2}}).Fit(ctx, Y, labels); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled Fit returned %v", err)
	}
}

// TestDLSIBackends checks that one seed gives the same model on every run,
// and nearly the same on every BLAS backend.
func TestDLSIBackends(t *testing.T) {
	ds := dlsiSynthetic(t, 0, 30, 15)
	defer blas64.Use(blas64.Implementation())
	var ref *mat.Dense
	for name, impl := range blas.Implementations() {
		blas64.Use(impl)
		for run := 0; run < 2; run++ {
			m := &DLSI{Options: DLSIOptions{K: 4, Iters: 3, Seed: 9}}
			if err := m.Fit(context.Background(), ds.Train.Y, ds.Train.Labels); err != nil {
				t.Fatal(err)
			}
			D, part, D0 := m.Atoms()
			if D0 != nil || part.Len() != 16 {
				t.Fatalf("Atoms: part %v, D0 %v", part, D0)
			}
			if ref == nil {
				ref = D
				continue
			}
			var diff mat.Dense
			diff.Sub(D, ref)
			if n := mat.Norm(&diff, 2); n > 1e-6*mat.Norm(ref, 2) {
				t.Errorf("%s run %d: dictionary differs from the reference by %v", name, run, n)
			}
		}
	}
}

// TestDLSIUpdateDInverseGram checks a pass of E-DLSI-D with the Woodbury
// inverse, whose objective check reads ‖AᵀD_b‖² from the kept Gram matrix,
// against the same pass with the other atoms A formed for every block and
// ‖AᵀD_b‖² from AᵀD_b.
func TestDLSIUpdateDInverseGram(t *testing.T) {
	ctx := context.Background()
	const C, k, eta = 4, 4, 0.5
	Ys, sp, part, D := toy.Classes(7, C, 12, 10, k)
	if d, _ := D.Dims(); !incoherent.UseInverse(d, part) {
		t.Fatal("toy problem does not select the Woodbury inverse")
	}
	X := make([]*mat.Dense, C)
	for c := range X {
		X[c] = mat.NewDense(k, 10, nil)
	}
	if err := dlsiUpdateX(ctx, X, D, part, Ys, sp, 0.05); err != nil {
		t.Fatal(err)
	}
	got, want := mat.DenseCopyOf(D), mat.DenseCopyOf(D)
	if err := dlsiUpdateD(ctx, got, part, X, Ys, sp, nil, eta, false, dl.Settings{}); err != nil {
		t.Fatal(err)
	}
	d, _ := D.Dims()
	var rho float64
	for c := range X {
		rho += core.Dot(X[c], X[c]) / k
	}
	var inv incoherent.Inverse
	if !inv.Init(want, part, rho/C, eta) {
		t.Fatal("init failed")
	}
	for c := range X {
		a, b := part.Block(c)
		lo, hi := sp.Block(c)
		var E, F mat.Dense
		E.Mul(Ys.Slice(0, d, lo, hi), X[c].T())
		F.Mul(X[c], X[c].T())
		if err := incoherent.UpdateGram(ctx, want.Slice(0, d, a, b).(*mat.Dense), &E, &F, incoherent.OtherAtoms(want, part, c), nil, part, c, nil, &inv, eta, false, dl.Settings{}); err != nil {
			t.Fatal(err)
		}
		if c+1 < C && !inv.Next(want, part) {
			t.Fatal("next failed")
		}
	}
	if mat.Equal(want, D) {
		t.Fatal("the reference pass left D unchanged")
	}
	if !mat.EqualApprox(got, want, 1e-10) {
		t.Errorf("pass differs from the reference by %g", toy.MaxAbsDiff(got, want))
	}
}
