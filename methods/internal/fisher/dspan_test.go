package fisher

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/lrsdl/lrsdl/core"
	"github.com/lrsdl/lrsdl/methods/internal/dl"
	"github.com/lrsdl/lrsdl/methods/internal/toy"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl/internal/parallel"
	"github.com/lrsdl/lrsdl/internal/testutil"
)

// TestDictSpan checks dictSpan's basis against its definition: QᵀQ = I,
// Q·Dr = D and Q·Er = E, with r the rank of [D E], for [D E] of full rank
// and with E inside span(D) plus one direction.
func TestDictSpan(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	randn := func(r, c int) *mat.Dense { return testutil.RandDense(rng, r, c) }
	const d, k = 50, 6
	D := randn(d, k)
	low := mat.NewDense(d, k, nil)
	low.Mul(D, randn(k, k))
	low.Slice(0, d, 0, 1).(*mat.Dense).Copy(randn(d, 1))
	low.Slice(0, d, 1, 2).(*mat.Dense).Zero()
	for _, tc := range []struct {
		name string
		E    *mat.Dense
		rank int
	}{{"full rank", randn(d, k), 2 * k}, {"rank k+1", low, k + 1}} {
		Q, Dr, Er, ok := dictSpan(D, tc.E)
		if !ok {
			t.Fatalf("%s: not reduced", tc.name)
		}
		if _, r := Q.Dims(); r != tc.rank {
			t.Errorf("%s: rank %d, want %d", tc.name, r, tc.rank)
		}
		_, r := Q.Dims()
		var QtQ, P mat.Dense
		QtQ.Mul(Q.T(), Q)
		if !mat.EqualApprox(&QtQ, toy.Eye(r), 1e-12) {
			t.Errorf("%s: QᵀQ ≠ I", tc.name)
		}
		P.Mul(Q, Dr)
		if !mat.EqualApprox(&P, D, 1e-12) {
			t.Errorf("%s: Q·Dr ≠ D", tc.name)
		}
		P.Reset()
		P.Mul(Q, Er)
		if !mat.EqualApprox(&P, tc.E, 1e-12) {
			t.Errorf("%s: Q·Er ≠ E", tc.name)
		}
	}
	if _, _, _, ok := dictSpan(D.Slice(0, 14, 0, k).(*mat.Dense), D.Slice(0, 14, 0, k).(*mat.Dense)); ok {
		t.Error("14×12 [D E] reduced, want not (d ≤ 1.2·2k)")
	}
}

// TestDLRDReducedStepD checks that DLRD's D step in span([D E]) gives the
// D step in the data space (train.stepD) up to rounding, and lowers J.
func TestDLRDReducedStepD(t *testing.T) {
	Ys, sp, p := dlrdGrossToy(t)
	ctx := context.Background()
	run := func(off bool) (*mat.Dense, []float64) {
		tr, err := newTrain(ctx, p, dl.Settings{NoDictSpan: off}, mat.DenseCopyOf(Ys), sp)
		if err != nil {
			t.Fatal(err)
		}
		d, N := Ys.Dims()
		s := &dlrdTrain{t: tr, Y0: Ys, beta: grossBeta, E: mat.NewDense(d, N, nil)}
		var costs []float64
		for it := 0; it < 3; it++ {
			if err := s.stepX(ctx); err != nil {
				t.Fatal(err)
			}
			s.stepE()
			before := s.mustCost().Total
			if err := s.stepD(ctx); err != nil {
				t.Fatal(err)
			}
			after := s.mustCost().Total
			if after > before*(1+1e-12) {
				t.Errorf("off=%v iteration %d: D step raised J from %v to %v", off, it, before, after)
			}
			costs = append(costs, before, after)
		}
		return mat.DenseCopyOf(tr.D()), costs
	}
	sameReducedStep(t, run)
}

// sameReducedStep checks that run(false), training with the D step reduced
// to span([D E]), gives the dictionary of run(true), the full step, to
// 1e-8 and its costs (before and after each D step) to 1e-9 relative, and
// that the D steps lowered the cost.
func sameReducedStep(t *testing.T, run func(off bool) (*mat.Dense, []float64)) {
	t.Helper()
	Dfull, cfull := run(true)
	Dred, cred := run(false)
	if !mat.EqualApprox(Dfull, Dred, 1e-8) {
		var diff mat.Dense
		diff.Sub(Dfull, Dred)
		t.Errorf("reduced D step differs from the full one by %g (Frobenius)", mat.Norm(&diff, 2))
	}
	for i := range cfull {
		if d := cfull[i] - cred[i]; d > 1e-9*cfull[i] || -d > 1e-9*cfull[i] {
			t.Errorf("cost %d: %v reduced, %v full", i, cred[i], cfull[i])
		}
	}
	if !(cfull[len(cfull)-1] < cfull[1]) {
		t.Errorf("costs %v: D steps did not lower J", cfull)
	}
}

// dictSpan returns an orthonormal basis Q (d×r) of span([D E]) for the d×k
// matrices D and E (dictBasis, Q = Q₁V⁻¹), with the coordinates Dr = QᵀD
// and Er = QᵀE (r×k), or ok false when 2k is not below d/dl.SpanRatio (no
// gain) or the factorisation fails.
func dictSpan(D, E *mat.Dense) (Q, Dr, Er *mat.Dense, ok bool) {
	_, k := D.Dims()
	var G, H mat.Dense
	G.Mul(D.T(), D)
	H.Mul(D.T(), E)
	Q, V, C, ok := dictBasis(D, E, &G, &H)
	if !ok {
		return nil, nil, nil, false
	}
	blas64.Trsm(blas.Right, blas.NoTrans, 1, V, Q.RawMatrix())
	r, _ := C.Dims()
	return Q, mat.DenseCopyOf(C.Slice(0, r, 0, k)), mat.DenseCopyOf(C.Slice(0, r, k, 2*k)), true
}

// TestDLRDKeptProducts checks the products of the cost that DLRD keeps
// between steps instead of recomputing them: G = DᵀD from the reduced D
// step's coordinates (train.gramFrom) and B = DᵀY updated by the E step
// for the change of E (stepE), against DᵀD, DᵀY and ‖Y_c‖² formed anew,
// at a size where the D step runs in span([D E]).
func TestDLRDKeptProducts(t *testing.T) {
	Ys, sp, p := dlrdGrossToy(t)
	ctx := context.Background()
	tr, err := newTrain(ctx, p, dl.Settings{}, mat.DenseCopyOf(Ys), sp)
	if err != nil {
		t.Fatal(err)
	}
	d, N := Ys.Dims()
	s := &dlrdTrain{t: tr, Y0: Ys, beta: grossBeta, E: mat.NewDense(d, N, nil)}
	kept := 0
	check := func(step string) {
		t.Helper()
		gc := &tr.gc
		if gc.Db == nil || !mat.Equal(gc.Db, tr.Db) || gc.y != &tr.Y.RawMatrix().Data[0] {
			return // nothing kept
		}
		kept++
		var G, B mat.Dense
		G.Mul(tr.Db.T(), tr.Db)
		B.Mul(tr.Db.T(), tr.Y)
		if !mat.EqualApprox(gc.G, &G, 1e-12) {
			t.Errorf("after %s: kept DᵀD differs from DᵀD", step)
		}
		if !mat.EqualApprox(gc.B, &B, 1e-12) {
			t.Errorf("after %s: kept DᵀY differs from DᵀY", step)
		}
		for c, v := range dl.ClassSquares(nil, tr.Y, sp) {
			if math.Abs(gc.ysq[c]-v) > 1e-12*v {
				t.Errorf("after %s: kept ‖Y_%d‖² = %v, want %v", step, c, gc.ysq[c], v)
			}
		}
	}
	changedE, changedD := false, false
	for it := 0; it < 3; it++ {
		if err := s.stepX(ctx); err != nil {
			t.Fatal(err)
		}
		check("X step")
		E0 := mat.DenseCopyOf(s.E)
		s.stepE()
		changedE = changedE || !mat.Equal(E0, s.E)
		check("E step")
		D0 := mat.DenseCopyOf(tr.D())
		if err := s.stepD(ctx); err != nil {
			t.Fatal(err)
		}
		changedD = changedD || !mat.Equal(D0, tr.D())
		check("D step")
	}
	if !changedE || !changedD || kept < 6 {
		t.Errorf("E changed %v, D changed %v, products kept after %d steps: the test checks little", changedE, changedD, kept)
	}
}

// dlrdGrossToy returns 3 classes of 15 samples in 60 dimensions with 40 gross
// errors, their partition, and DLRD's parameters (k = 3, β = grossBeta) at
// which the D step runs in span([D E]).
// grossBeta is the sparse-error weight β of dlrdGrossToy.
const grossBeta = 0.5

func dlrdGrossToy(t *testing.T) (*mat.Dense, core.Partition, Params) {
	t.Helper()
	Ys, sp, _, _ := toy.Classes(1, 3, 60, 15, 3)
	rng := rand.New(rand.NewPCG(3, 3))
	for n := 0; n < 40; n++ {
		i, j := rng.IntN(60), rng.IntN(45)
		Ys.Set(i, j, Ys.At(i, j)+3*rng.NormFloat64())
	}
	return Ys, sp, dlrdParams(3, 0.05, 0.1, 15, 0)
}

// TestDLRDStepDMinimisesJ checks that DLRD's D step, in the data space and
// in span([D E]), minimises J's own D part ½(tr(F·DᵀD) − 2tr(EDᵀ)) +
// αΣ_c‖D_c‖_* (checkStepDMinimisesPhi).
func TestDLRDStepDMinimisesJ(t *testing.T) {
	Ys, sp, p := dlrdGrossToy(t)
	p.Alpha = 0.5
	ctx := context.Background()
	for _, off := range []bool{true, false} {
		tr, err := newTrain(ctx, p, dl.Settings{NoDictSpan: off}, mat.DenseCopyOf(Ys), sp)
		if err != nil {
			t.Fatal(err)
		}
		d, N := Ys.Dims()
		s := &dlrdTrain{t: tr, Y0: Ys, beta: grossBeta, E: mat.NewDense(d, N, nil)}
		if err := s.stepX(ctx); err != nil {
			t.Fatal(err)
		}
		s.stepE()
		checkStepDMinimisesPhi(t, fmt.Sprintf("span off=%v", off), tr, func() error {
			return s.stepD(ctx)
		})
	}
}

// TestDLRDBlockJobs checks that the class blocks' SVTs and nuclear norms,
// shared between goroutines (svtJob, train.nuclear), give bit for bit the
// blocks thresholded one after the other and the norms summed in order.
func TestDLRDBlockJobs(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	const r, k, C = 300, 20, 9 // r·K·k above parallel.MinWork
	sizes := make([]int, C)
	for c := range sizes {
		sizes[c] = k
	}
	ap := core.NewPartition(sizes...)
	V := mat.NewDense(r, C*k, nil)
	for i := range V.RawMatrix().Data {
		V.RawMatrix().Data[i] = rng.NormFloat64()
	}
	want := mat.NewDense(r, C*k, nil)
	var nuc float64
	const alpha, tau = 0.3, 2.5
	for c := 0; c < C; c++ {
		a0, a1 := ap.Block(c)
		core.SVT(want.Slice(0, r, a0, a1).(*mat.Dense), V.Slice(0, r, a0, a1).(*mat.Dense), tau)
		nuc += alpha * core.NuclearNorm(V.Slice(0, r, a0, a1))
	}
	got := mat.NewDense(r, C*k, nil)
	parallel.For(C, &svtJob{z: got, v: V, ap: ap, tau: tau, w: make([]core.SVTWorkspace, C)}, r*C*k*k)
	if !mat.Equal(got, want) {
		t.Errorf("svtJob differs from the blocks' SVTs by %g", toy.MaxAbsDiff(got, want))
	}
	tr := &train{p: Params{Alpha: alpha}, ap: ap, K: C * k}
	if v := tr.nuclear(V); v != nuc {
		t.Errorf("nuclear %v, want %v", v, nuc)
	}
}

// TestPhiKept checks φ(D) from DᵀE, DᵀD and the nuclear term (phiKept,
// spanStep's test at the current D) against train.phiD.
func TestPhiKept(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	const d, k, C = 40, 4, 3
	sizes := make([]int, C)
	for c := range sizes {
		sizes[c] = k
	}
	tr := &train{p: Params{Alpha: 0.3}, ap: core.NewPartition(sizes...), K: C * k}
	D, E, X := mat.NewDense(d, C*k, nil), mat.NewDense(d, C*k, nil), mat.NewDense(C*k, 2*C*k, nil)
	for _, m := range []*mat.Dense{D, E, X} {
		for i := range m.RawMatrix().Data {
			m.RawMatrix().Data[i] = rng.NormFloat64()
		}
	}
	var F, G, H mat.Dense
	F.Mul(X, X.T())
	G.Mul(D.T(), D)
	H.Mul(D.T(), E)
	got, want := phiKept(&H, &G, &F, tr.nuclear(D)), tr.phiD(D, E, &F)
	if math.Abs(got-want) > 1e-12*math.Abs(want) {
		t.Errorf("phiKept %v, phiD %v", got, want)
	}
}
