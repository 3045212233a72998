package methods

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/blas"
	"github.com/lrsdl/lrsdl/core"
	"github.com/lrsdl/lrsdl/internal/testutil"
	"github.com/lrsdl/lrsdl/methods/internal/dl"
	"github.com/lrsdl/lrsdl/methods/internal/toy"
)

// coparToyProblem is toy.Classes with a pattern shared by all classes
// and k0 shared atoms appended to the initial dictionary.
func coparToyProblem(seed uint64, C, d, n, k, k0 int) (Ys *mat.Dense, sp, part core.Partition, D *mat.Dense, X []*mat.Dense) {
	Ys, sp, _, _ = toy.Classes(seed, C, d, n, k)
	rng := rand.New(rand.NewPCG(seed, 4))
	shared := testutil.RandUnitCols(rng, d, 1)
	for j := 0; j < C*n; j++ {
		w := 1 + rng.Float64()
		for i := 0; i < d; i++ {
			Ys.Set(i, j, Ys.At(i, j)+w*shared.At(i, 0))
		}
	}
	sizes := make([]int, C+1)
	for c := 0; c < C; c++ {
		sizes[c] = k
	}
	sizes[C] = k0
	part = core.NewPartition(sizes...)
	D = testutil.RandUnitCols(rng, d, part.Len())
	X = make([]*mat.Dense, C)
	for c := range X {
		X[c] = mat.NewDense(part.Len(), n, nil)
	}
	return Ys, sp, part, D, X
}

// TestCOPARUpdatesLowerCost checks that COPAR-X and both COPAR-D
// algorithms never increase J.
func TestCOPARUpdatesLowerCost(t *testing.T) {
	for _, original := range []bool{false, true} {
		Ys, sp, part, D, X := coparToyProblem(1, 3, 12, 15, 3, 2)
		o := resolvedOpts(COPAROptions{Lambda: 0.05, Eta: 0.2})
		toy.CheckDescent(t, fmt.Sprint("original=", original), D, 0.95, func() float64 { return coparCost(D, part, X, Ys, sp, o).Total },
			func() error {
				return coparUpdateX(context.Background(), X, D, part, Ys, sp, o.Lambda, coparXIters, true)
			},
			func() error {
				return coparUpdateD(context.Background(), D, part, X, Ys, sp, nil, o.Eta, original, dl.Settings{})
			})
		if !original {
			lo, hi := part.Block(3) // D_0, updated last
			dlsiCheckBlockOptimal(t, D, lo, hi, func() float64 { return coparCost(D, part, X, Ys, sp, o).Total })
		}
	}
}

// TestCOPARXGradient checks the gradient used by COPAR-X, H·X − B, against
// central differences of the smooth terms of J at a random X̄, and the
// optimality conditions of the result of COPAR-X.
func TestCOPARXGradient(t *testing.T) {
	Ys, sp, part, D, X := coparToyProblem(2, 3, 8, 5, 2, 2)
	o := resolvedOpts(COPAROptions{Lambda: 0.05, Eta: 0.1})
	rng := rand.New(rand.NewPCG(5, 5))
	smooth := func() float64 {
		c := coparCost(D, part, X, Ys, sp, o)
		return c.Total - c.Term("sparsity") - c.Term("incoherence")
	}
	K := part.Len()
	var G, DtY mat.Dense
	G.Mul(D.T(), D)
	H := mat.NewDense(K, K, nil)
	const h = 1e-6
	for c := range X {
		for i := 0; i < K; i++ {
			for j := 0; j < 5; j++ {
				X[c].Set(i, j, rng.NormFloat64())
			}
		}
	}
	for c := range X {
		lo, hi := sp.Block(c)
		DtY.Reset()
		DtY.Mul(D.T(), Ys.Slice(0, 8, lo, hi))
		B := mat.NewDense(K, hi-lo, nil)
		coparSystem(H, B, &G, &DtY, part, c)
		var grad mat.Dense
		grad.Mul(H, X[c])
		grad.Sub(&grad, B)
		for i := 0; i < K; i++ {
			for j := 0; j < hi-lo; j++ {
				if fd := testutil.CentralDiff(smooth, X[c], i, j, h); math.Abs(fd-grad.At(i, j)) > 1e-5*math.Max(1, math.Abs(fd)) {
					t.Errorf("class %d: ∂J/∂x[%d,%d] = %v by differences, %v by H·X − B", c, i, j, fd, grad.At(i, j))
				}
			}
		}
	}
	// Optimality of COPAR-X: ∂smooth = −λ·sgn(x) where x ≠ 0, |∂smooth| ≤ λ where x = 0.
	if err := coparUpdateX(context.Background(), X, D, part, Ys, sp, o.Lambda, coparXIters, true); err != nil {
		t.Fatal(err)
	}
	nz := 0
	for c := range X {
		for i := 0; i < K; i++ {
			for j := 0; j < 5; j++ {
				x := X[c].At(i, j)
				g := testutil.CentralDiff(smooth, X[c], i, j, h)
				if x != 0 {
					nz++
					if want := -o.Lambda * math.Copysign(1, x); math.Abs(g-want) > 1e-4 {
						t.Errorf("class %d x[%d,%d]=%v: ∂J = %v, want %v", c, i, j, x, g, want)
					}
				} else if math.Abs(g) > o.Lambda+1e-4 {
					t.Errorf("class %d x[%d,%d]=0: |∂J| = %v > λ", c, i, j, math.Abs(g))
				}
			}
		}
	}
	if nz == 0 {
		t.Fatal("all codes are zero; the test checks nothing")
	}
}

// TestCOPARDictOriginalVsEfficient runs COPAR with O- and E-COPAR-D from
// the same start: the final costs must agree within 1 % (or E- be lower).
func TestCOPARDictOriginalVsEfficient(t *testing.T) {
	var cost [2]float64
	for i, original := range []bool{true, false} {
		Ys, sp, part, D, X := coparToyProblem(3, 3, 12, 15, 3, 2)
		o := resolvedOpts(COPAROptions{Lambda: 0.05, Eta: 0.2})
		for it := 0; it < 8; it++ {
			if err := coparUpdateX(context.Background(), X, D, part, Ys, sp, o.Lambda, coparXIters, true); err != nil {
				t.Fatal(err)
			}
			if err := coparUpdateD(context.Background(), D, part, X, Ys, sp, nil, o.Eta, original, dl.Settings{}); err != nil {
				t.Fatal(err)
			}
		}
		cost[i] = coparCost(D, part, X, Ys, sp, o).Total
	}
	t.Logf("cost after 8 iterations: O-COPAR-D %v, E-COPAR-D %v", cost[0], cost[1])
	if cost[1] > cost[0]*1.01 {
		t.Errorf("E-COPAR-D cost %v more than 1 %% above O-COPAR-D %v", cost[1], cost[0])
	}
}

// TestCOPARSynthetic trains on the simulated data (4 classes with shared
// patterns, chance 25 %) and checks accuracy with both coding rules,
// monotone progress, Atoms and the state round trip.
func TestCOPARSynthetic(t *testing.T) {
	for _, original := range []bool{false, true} {
		size := 20
		if original {
			size = 10 // O-COPAR-D is slow; smaller images
		}
		ds := dlsiSynthetic(t, size, 120, 40)
		var costs []float64
		m := &COPAR{Options: COPAROptions{K: 5, K0: 3, Lambda: 0.01, Eta: 0.01, Iters: 5, OriginalD: original, Seed: 4,
			Progress: func(p lrsdl.Progress) { costs = append(costs, p.Cost.Total) }}}
		if err := m.Fit(context.Background(), ds.Train.Y, ds.Train.Labels); err != nil {
			t.Fatal(err)
		}
		dlsiCheckMonotone(t, fmt.Sprint("original=", original), costs, 5)
		D, part, D0 := m.Atoms()
		if _, k := D.Dims(); k != 20 || part.Blocks() != 4 || D0 == nil {
			t.Fatalf("Atoms: D with %d atoms, part %v, D0 %v", k, part, D0)
		}
		for _, coding := range []string{"gc", "lc"} {
			m.Options.Coding = coding
			acc := dlsiAccuracy(t, m, ds.Test)
			t.Logf("COPAR original=%v %s synthetic accuracy %.3f", original, coding, acc)
			// Measured: 0.93 (gc) and 0.97 (lc) on 20×20 images; 0.70 and
			// 0.93 on 10×10 images, where the shared patterns dominate.
			floor := 0.85
			if size == 10 && coding == "gc" {
				floor = 0.6
			}
			if acc < floor {
				t.Errorf("original=%v %s: accuracy %.3f on 4-class synthetic data, want ≥ %v", original, coding, acc, floor)
			}
			dlsiCheckRoundTrip(t, m, &COPAR{}, ds.Test.Y)
			dlsiCheckSparse(t, m, ds.Test.Y)
		}
	}
}

// TestCOPARBadInput checks descriptive errors for bad input.
func TestCOPARBadInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	Y := testutil.RandDense(rng, 5, 8)
	labels := []int{1, 1, 1, 1, 2, 2, 2, 2}
	inf := mat.DenseCopyOf(Y)
	inf.Set(1, 1, math.Inf(1))
	cases := []struct {
		name   string
		o      COPAROptions
		Y      mat.Matrix
		labels []int
		want   string
	}{
		{"label count", COPAROptions{K: 2, K0: 2}, Y, labels[:3], "labels"},
		{"Inf", COPAROptions{K: 2, K0: 2}, inf, labels, "non-finite"},
		{"too few samples", COPAROptions{K: 5, K0: 2}, Y, labels, "k must be at most 4"},
		{"too many shared atoms", COPAROptions{K: 2, K0: 9}, Y, labels, "k0 must be at most 8"},
		{"coding", COPAROptions{K: 2, K0: 2, Coding: "xx"}, Y, labels, "coding"},
		{"one class", COPAROptions{K: 2, K0: 2}, Y, []int{1, 1, 1, 1, 1, 1, 1, 1}, "2 classes"},
	}
	for _, c := range cases {
		err := (&COPAR{Options: c.o}).Fit(context.Background(), c.Y, c.labels)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one mentioning %q", c.name, err, c.want)
		}
	}
	m := &COPAR{Options: COPAROptions{K: 2, K0: 2, Iters: 2}}
	if _, err := m.Predict(Y); err == nil {
		t.Error("untrained Predict succeeded")
	}
	if err := m.Fit(context.Background(), Y, labels); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Predict(mat.NewDense(6, 2, nil)); err == nil {
		t.Error("Predict accepted data of the wrong dimension")
	}
	s, _ := m.State()
	s.Matrices["D"] = mat.NewDense(5, 3, nil)
	if err := (&COPAR{}).SetState(s); err == nil {
		t.Error("SetState accepted a dictionary of the wrong size")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := (&COPAR{Options: COPAROptions{K: 2, K0: 2}}).Fit(ctx, Y, labels); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled Fit returned %v", err)
	}
}

// TestCOPARBackends checks that one seed gives the same model on every run,
// and nearly the same on every BLAS backend.
func TestCOPARBackends(t *testing.T) {
	ds := dlsiSynthetic(t, 0, 30, 15)
	defer blas64.Use(blas64.Implementation())
	var ref *mat.Dense
	var refPred []int
	for name, impl := range blas.Implementations() {
		blas64.Use(impl)
		for run := 0; run < 2; run++ {
			m := &COPAR{Options: COPAROptions{K: 4, K0: 2, Iters: 3, Seed: 9}}
			if err := m.Fit(context.Background(), ds.Train.Y, ds.Train.Labels); err != nil {
				t.Fatal(err)
			}
			pred, err := m.Predict(ds.Test.Y)
			if err != nil {
				t.Fatal(err)
			}
			if ref == nil {
				ref, refPred = m.D, pred
				continue
			}
			var diff mat.Dense
			diff.Sub(m.D, ref)
			if n := mat.Norm(&diff, 2); n > 1e-6*mat.Norm(ref, 2) {
				t.Errorf("%s run %d: dictionary differs from the reference by %v", name, run, n)
			}
			same := 0
			for i := range pred {
				if pred[i] == refPred[i] {
					same++
				}
			}
			if same < len(pred)*99/100 {
				t.Errorf("%s run %d: %d of %d predictions agree with the reference", name, run, same, len(pred))
			}
		}
	}
}

// TestDLSICOPARRegistry checks that both methods are registered and take
// their options as JSON (the model files' form).
func TestDLSICOPARRegistry(t *testing.T) {
	for _, c := range []struct{ name, cfg string }{
		{"dlsi", `{"k":5,"lambda":0.01,"eta":0.1,"iters":3,"original_d":true,"seed":2}`},
		{"COPAR", `{"k":5,"k0":2,"lambda":0.01,"eta":0.1,"iters":3,"original_d":true,"coding":"gc","seed":2}`},
	} {
		m, err := New(c.name)
		if err != nil {
			t.Fatal(err)
		}
		cfg := reflect.ValueOf(m).Elem().FieldByName("Options").Addr().Interface()
		if err := json.Unmarshal([]byte(c.cfg), cfg); err != nil {
			t.Fatal(err)
		}
		back, _ := json.Marshal(cfg)
		var a, b map[string]any
		json.Unmarshal([]byte(c.cfg), &a)
		json.Unmarshal(back, &b)
		for k, v := range a {
			if b[k] != v {
				t.Errorf("%s: option %q is %v after the round trip, want %v", c.name, k, b[k], v)
			}
		}
	}
}

// TestBaselinesSameWhateverGOMAXPROCS checks that the class-parallel steps
// of LC-KSVD (initial K-SVD per class, OMP), DLSI and COPAR (codes per
// class) give the same model bits on one goroutine and on several.
func TestBaselinesSameWhateverGOMAXPROCS(t *testing.T) {
	Y, labels, _ := toy.Shared(4, 12, 20, 29)
	for _, name := range []string{"LCKSVD1", "LCKSVD2", "DLSI", "COPAR"} {
		var want *mat.Dense
		for _, procs := range []int{1, 2, 3} {
			func() {
				defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
				m, err := New(name)
				if err != nil {
					t.Fatal(err)
				}
				for p, v := range map[string]string{"k": "4", "iters": "3"} {
					if err := m.(interface{ SetParam(string, string) error }).SetParam(p, v); err != nil {
						t.Fatal(err)
					}
				}
				if name[:2] == "LC" {
					_ = m.(interface{ SetParam(string, string) error }).SetParam("sparsity", "3")
				}
				if err := m.Fit(context.Background(), Y, labels); err != nil {
					t.Fatal(err)
				}
				D, _, _ := m.(Dictionary).Atoms()
				if want == nil {
					want = mat.DenseCopyOf(D)
				} else if !mat.Equal(D, want) {
					t.Errorf("%s: GOMAXPROCS=%d gave another dictionary than GOMAXPROCS=1", name, procs)
				}
			}()
		}
	}
}

// TestCOPARUpdateXBatched checks the batched COPAR-X of coparUpdateX
// against LassoGram on each class's system H_c, B_c (coparSystem), with
// momentum restarts (d ≥ 2K) and without.
func TestCOPARUpdateXBatched(t *testing.T) {
	part := core.Partition{0, 3, 6, 9, 11} // three classes and D_0
	sp := core.Partition{0, 4, 9, 12}
	K := part.Len()
	for _, d := range []int{12, 2 * K} {
		rng := rand.New(rand.NewPCG(5, 6))
		D := testutil.RandDense(rng, d, K)
		Ys := testutil.RandDense(rng, d, sp.Len())
		const lambda = 0.05
		var G, DtY mat.Dense
		G.Mul(D.T(), D)
		core.MulTrans(&DtY, D, Ys)
		X := make([]*mat.Dense, 3)
		want := make([]*mat.Dense, 3)
		for c := range X {
			lo, hi := sp.Block(c)
			X[c] = mat.NewDense(K, hi-lo, nil)
			if c == 1 { // a warm start
				X[c].Set(0, 0, 0.3)
			}
			want[c] = mat.DenseCopyOf(X[c])
			H := mat.NewDense(K, K, nil)
			B := mat.NewDense(K, hi-lo, nil)
			coparSystem(H, B, &G, DtY.Slice(0, K, lo, hi).(*mat.Dense), part, c)
			if err := core.LassoGram(context.Background(), want[c], H, B, lambda, core.LassoOptions{Restart: 2*K <= d}); err != nil {
				t.Fatal(err)
			}
		}
		if err := coparUpdateX(context.Background(), X, D, part, Ys, sp, lambda, coparXIters, true); err != nil {
			t.Fatal(err)
		}
		for c := range X {
			if !mat.EqualApprox(X[c], want[c], 1e-10) {
				t.Errorf("d=%d, class %d: batched COPAR-X\n%v\nLassoGram\n%v", d, c, mat.Formatted(X[c]), mat.Formatted(want[c]))
			}
		}
	}
}

// TestCOPARUpdateXView checks coparUpdateX against LassoGram when a
// class's codes are a view into a wider matrix (its rows not contiguous),
// whose other columns must stay as they are.
func TestCOPARUpdateXView(t *testing.T) {
	part := core.Partition{0, 3, 6, 9, 11}
	sp := core.Partition{0, 4, 6, 14}
	K := part.Len()
	rng := rand.New(rand.NewPCG(7, 8))
	D := testutil.RandDense(rng, 10, K)
	Ys := testutil.RandDense(rng, 10, sp.Len())
	const lambda = 0.05
	var G, DtY mat.Dense
	G.Mul(D.T(), D)
	core.MulTrans(&DtY, D, Ys)
	wide := mat.NewDense(K, 11, nil)
	for i := 0; i < K; i++ {
		wide.Set(i, 0, 7)
		wide.Set(i, 9, 0.1*float64(i))
		wide.Set(i, 10, 9)
	}
	X := []*mat.Dense{mat.NewDense(K, 4, nil), mat.NewDense(K, 2, nil), wide.Slice(0, K, 2, 10).(*mat.Dense)}
	want := make([]*mat.Dense, 3)
	for c := range X {
		lo, hi := sp.Block(c)
		want[c] = mat.DenseCopyOf(X[c])
		H := mat.NewDense(K, K, nil)
		B := mat.NewDense(K, hi-lo, nil)
		coparSystem(H, B, &G, DtY.Slice(0, K, lo, hi).(*mat.Dense), part, c)
		if err := core.LassoGram(context.Background(), want[c], H, B, lambda, core.LassoOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := coparUpdateX(context.Background(), X, D, part, Ys, sp, lambda, coparXIters, true); err != nil {
		t.Fatal(err)
	}
	for c := range X {
		if !mat.EqualApprox(X[c], want[c], 1e-10) {
			t.Errorf("class %d: COPAR-X\n%v\nLassoGram\n%v", c, mat.Formatted(X[c]), mat.Formatted(want[c]))
		}
	}
	for i := 0; i < K; i++ {
		if wide.At(i, 0) != 7 || wide.At(i, 10) != 9 {
			t.Fatalf("row %d: columns outside the view changed: %v %v", i, wide.At(i, 0), wide.At(i, 10))
		}
	}
	if mat.Norm(X[2], 1) == 0 {
		t.Error("codes of class 2 are all zero; the check is vacuous")
	}
}

// coparCostDirect is J by the definition, class by class with the masked
// codes P_cX̄_c (coparMask): the reference for coparCost.
func coparCostDirect(D *mat.Dense, part core.Partition, X []*mat.Dense, Ys *mat.Dense, sp core.Partition, o COPAROptions) lrsdl.Cost {
	d, _ := D.Dims()
	var fid, cfid, off, l1 float64
	var R, Xt mat.Dense
	for c := range X {
		lo, hi := sp.Block(c)
		Yc := Ys.Slice(0, d, lo, hi)
		R.Reset()
		R.Mul(D, X[c])
		R.Sub(Yc, &R)
		fid += core.Dot(&R, &R)
		Xt.Reset()
		Xt.ReuseAs(X[c].Dims())
		coparMask(&Xt, X[c], part, c)
		R.Mul(D, &Xt)
		R.Sub(Yc, &R)
		cfid += core.Dot(&R, &R)
		Xt.Sub(X[c], &Xt)
		off += core.Dot(&Xt, &Xt)
		l1 += core.L1(X[c])
	}
	return coparTerms(D, part, o, fid, cfid, off, l1)
}

// TestCOPARCostDirect checks coparCost against J formed by the definition
// (coparCostDirect) at random dictionaries and codes, term by term.
func TestCOPARCostDirect(t *testing.T) {
	Ys, sp, part, D, X := coparToyProblem(3, 3, 9, 4, 3, 2)
	rng := rand.New(rand.NewPCG(9, 9))
	for _, x := range X {
		for i := range x.RawMatrix().Data {
			x.RawMatrix().Data[i] = rng.NormFloat64()
		}
	}
	o := resolvedOpts(COPAROptions{Lambda: 0.05, Eta: 0.1})
	got, want := coparCost(D, part, X, Ys, sp, o), coparCostDirect(D, part, X, Ys, sp, o)
	if math.Abs(got.Total-want.Total) > 1e-12*want.Total {
		t.Errorf("J = %v, want %v", got.Total, want.Total)
	}
	for _, w := range want.Terms {
		if g := got.Term(w.Name); math.Abs(g-w.Value) > 1e-12*math.Max(1, w.Value) || w.Value == 0 {
			t.Errorf("%s = %v, want %v (non-zero)", w.Name, g, w.Value)
		}
	}
}

// TestDictStepsSameWhateverBLASThreads checks that DLSI's dictionary step
// and COPAR's X and dictionary steps give the same bits with
// SetOpenBLASThreads 1 and 2, at a size (K = 200 atoms, d = 900, N = 960)
// where their Gram products DᵀD, COPAR-X's G·W and COPAR-D's Y·X̄ᵀ are
// split between the cores.
func TestDictStepsSameWhateverBLASThreads(t *testing.T) {
	if lrsdl.Backend() != "openblas" {
		t.Skip("needs the OpenBLAS backend")
	}
	const C, n, k, d = 8, 120, 25, 900
	rng := rand.New(rand.NewPCG(5, 6))
	randn := func(r, c int) *mat.Dense { return testutil.RandDense(rng, r, c) }
	Ys := randn(d, C*n)
	sp := dl.BlockPartition(C, n)
	defer blas.SetOpenBLASThreads(blas.SetOpenBLASThreads(0))
	for _, name := range []string{"DLSI", "COPAR-D", "COPAR-X"} {
		part := dl.BlockPartition(C, k)
		if name != "DLSI" {
			part = dl.BlockPartition(C, k, 10)
		}
		D0 := randn(d, part.Len())
		for j := 0; j < part.Len(); j++ {
			v := D0.ColView(j).(*mat.VecDense)
			v.ScaleVec(1/mat.Norm(v, 2), v)
		}
		X0 := make([]*mat.Dense, C)
		for c := range X0 {
			X0[c] = randn(part.Len(), n)
			if name == "DLSI" {
				X0[c] = randn(k, n)
			}
		}
		var want []*mat.Dense
		for _, threads := range []int{1, 2} {
			blas.SetOpenBLASThreads(threads)
			D := mat.DenseCopyOf(D0)
			X := make([]*mat.Dense, C)
			for c := range X {
				X[c] = mat.DenseCopyOf(X0[c])
			}
			var err error
			switch name {
			case "DLSI":
				err = dlsiUpdateD(context.Background(), D, part, X, Ys, sp, nil, 0.05, false, dl.Settings{})
			case "COPAR-D":
				err = coparUpdateD(context.Background(), D, part, X, Ys, sp, nil, 0.01, false, dl.Settings{})
			case "COPAR-X":
				err = coparUpdateX(context.Background(), X, D, part, Ys, sp, 0.001, coparXIters, false)
			}
			if err != nil {
				t.Fatal(err)
			}
			got := append([]*mat.Dense{D}, X...)
			if mat.Equal(D, D0) && mat.Equal(X[0], X0[0]) {
				t.Fatalf("%s: the step left D and X unchanged", name)
			}
			if want == nil {
				want = got
				continue
			}
			for i := range got {
				if !mat.Equal(got[i], want[i]) {
					t.Errorf("%s: SetOpenBLASThreads(2) gave another result than 1", name)
					break
				}
			}
		}
	}
}

// TestCOPARDictProducts checks coparDictProducts against its definition,
// summed class by class with the masked codes P_cX̄_c (coparMask).
func TestCOPARDictProducts(t *testing.T) {
	Ys, sp, part, _, X := coparToyProblem(6, 3, 9, 5, 3, 2)
	rng := rand.New(rand.NewPCG(6, 7))
	for c := range X {
		r, n := X[c].Dims()
		for i := 0; i < r; i++ {
			for j := 0; j < n; j++ {
				X[c].Set(i, j, rng.NormFloat64())
			}
		}
	}
	d, K := Ys.RawMatrix().Rows, part.Len()
	wantF, wantE := mat.NewDense(K, K, nil), mat.NewDense(d, K, nil)
	var Xt, t1 mat.Dense
	for c := range X {
		lo, hi := sp.Block(c)
		Xt.Reset()
		Xt.ReuseAs(X[c].Dims())
		coparMask(&Xt, X[c], part, c)
		t1.Reset()
		t1.Mul(X[c], X[c].T())
		wantF.Add(wantF, &t1)
		t1.Reset()
		t1.Mul(&Xt, Xt.T())
		wantF.Add(wantF, &t1)
		Xt.Add(&Xt, X[c])
		t1.Reset()
		t1.Mul(Ys.Slice(0, d, lo, hi), Xt.T())
		wantE.Add(wantE, &t1)
	}
	F, E := coparDictProducts(part, X, Ys, sp)
	if !mat.EqualApprox(F, wantF, 1e-12) {
		t.Errorf("F\n%v\nwant\n%v", mat.Formatted(F), mat.Formatted(wantF))
	}
	if !mat.EqualApprox(E, wantE, 1e-12) {
		t.Errorf("E\n%v\nwant\n%v", mat.Formatted(E), mat.Formatted(wantE))
	}
}

// coparMask sets dst = P_c·X: the rows of X outside class block c and the
// shared (last) block set to zero.
func coparMask(dst, X *mat.Dense, part core.Partition, c int) {
	dst.Copy(X)
	_, n := X.Dims()
	C := part.Blocks() - 1
	lo, hi := part.Block(c)
	for i := 0; i < part[C]; i++ {
		if i < lo || i >= hi {
			for j := 0; j < n; j++ {
				dst.Set(i, j, 0)
			}
		}
	}
}

// TestCOPARXIters checks that x_iters caps COPAR-X's FISTA: one iteration
// from zero codes is the proximal gradient step S_{λ/L}(B_c/L) of each
// class (L = λmax(H_c)), and 200 iterations lower the cost further.
func TestCOPARXIters(t *testing.T) {
	Ys, sp, part, D, X := coparToyProblem(2, 3, 12, 15, 3, 2)
	o := resolvedOpts(COPAROptions{Lambda: 0.05, Eta: 0.2})
	if err := coparUpdateX(context.Background(), X, D, part, Ys, sp, o.Lambda, 1, false); err != nil {
		t.Fatal(err)
	}
	K := part.Len()
	var G, DtY mat.Dense
	G.Mul(D.T(), D)
	nz := 0
	for c := range X {
		lo, hi := sp.Block(c)
		DtY.Reset()
		DtY.Mul(D.T(), Ys.Slice(0, 12, lo, hi))
		H, B := mat.NewDense(K, K, nil), mat.NewDense(K, hi-lo, nil)
		coparSystem(H, B, &G, &DtY, part, c)
		var p core.PowerIter
		_, L := p.MaxEig(H)
		for i := 0; i < K; i++ {
			for j := 0; j < hi-lo; j++ {
				v := B.At(i, j) / L
				want := math.Copysign(math.Max(math.Abs(v)-o.Lambda/L, 0), v)
				if got := X[c].At(i, j); math.Abs(got-want) > 1e-12*math.Max(1, math.Abs(want)) {
					t.Errorf("class %d x[%d,%d] after one iteration = %v, want %v", c, i, j, got, want)
				}
				if want != 0 {
					nz++
				}
			}
		}
	}
	if nz == 0 {
		t.Fatal("every code of the first step is zero; the test checks nothing")
	}
	one := coparCost(D, part, X, Ys, sp, o).Total
	if err := coparUpdateX(context.Background(), X, D, part, Ys, sp, o.Lambda, coparXIters, false); err != nil {
		t.Fatal(err)
	}
	if more := coparCost(D, part, X, Ys, sp, o).Total; !(more < one) {
		t.Errorf("cost after %d more iterations %v, not below %v after one", coparXIters, more, one)
	}
}
