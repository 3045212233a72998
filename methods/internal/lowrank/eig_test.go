package lowrank

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/lapack/gonum"
	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl/core"
	"github.com/lrsdl/lrsdl/methods/internal/toy"
)

// TestSymEigLow checks SymEigLow against mat.EigenSym: the k smallest
// eigenvalues, orthonormal vectors with residuals ‖Av − λv‖ at rounding
// level, their largest entries positive, and the same invariant subspace,
// for a random matrix and one with repeated and clustered eigenvalues.
func TestSymEigLow(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const n, k = 60, 8
	random := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			random.SetSym(i, j, rng.NormFloat64())
		}
	}
	// Q·diag(λ)·Qᵀ with λ = −3, −3, −3, −2, −2+1e-9, −1, 0, 0, … .
	var qr mat.QR
	g := mat.NewDense(n, n, nil)
	for i := range g.RawMatrix().Data {
		g.RawMatrix().Data[i] = rng.NormFloat64()
	}
	qr.Factorize(g)
	var Q mat.Dense
	qr.QTo(&Q)
	lam := make([]float64, n)
	copy(lam, []float64{-3, -3, -3, -2, -2 + 1e-9, -1})
	for i := 6; i < n; i++ {
		lam[i] = float64(i-6) / 10
	}
	var QL mat.Dense
	QL.Mul(&Q, mat.NewDiagDense(n, lam))
	var c mat.Dense
	c.Mul(&QL, Q.T())
	clustered := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			clustered.SetSym(i, j, (c.At(i, j)+c.At(j, i))/2)
		}
	}
	for _, tc := range []struct {
		name string
		a    *mat.SymDense
	}{{"random", random}, {"clustered", clustered}} {
		vals, V, ok := SymEigLow(tc.a, k)
		if !ok {
			t.Fatalf("%s: failed", tc.name)
		}
		var eig mat.EigenSym
		if !eig.Factorize(tc.a, true) {
			t.Fatal("EigenSym failed")
		}
		want := eig.Values(nil)
		var W mat.Dense
		eig.VectorsTo(&W)
		for j := 0; j < k; j++ {
			if math.Abs(vals[j]-want[j]) > 1e-12 {
				t.Errorf("%s: λ%d = %v, want %v", tc.name, j, vals[j], want[j])
			}
			var r mat.VecDense
			r.MulVec(tc.a, V.ColView(j))
			r.AddScaledVec(&r, -vals[j], V.ColView(j))
			if nr := r.Norm(2); nr > 1e-11 {
				t.Errorf("%s: ‖Av − λv‖ = %v for λ%d", tc.name, nr, j)
			}
			if big := mat.Max(V.ColView(j)); big < -mat.Min(V.ColView(j)) {
				t.Errorf("%s: largest entry of v%d is negative", tc.name, j)
			}
		}
		var VtV mat.Dense
		VtV.Mul(V.T(), V)
		if !mat.EqualApprox(&VtV, toy.Eye(k), 1e-10) {
			t.Errorf("%s: VᵀV ≠ I", tc.name)
		}
		// Same subspace as EigenSym's first k vectors (λ_k < λ_{k+1} here):
		// ‖WᵀV‖_F² = k.
		var P mat.Dense
		P.Mul(W.Slice(0, n, 0, k).T(), V)
		if f := mat.Norm(&P, 2); math.Abs(f*f-k) > 1e-9 {
			t.Errorf("%s: ‖WᵀV‖² = %v, want %d", tc.name, f*f, k)
		}
	}
}

// TestSVTGram checks SVTGram against core.SVT (the thin SVD) on tall, wide
// and square matrices with fast-decaying singular values, at thresholds
// keeping all, some and none of them, that it declines a τ below
// svtGramMin·‖a‖₂, and that it thresholds zero to zero.
func TestSVTGram(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, sz := range [][2]int{{30, 30}, {40, 25}, {25, 40}} {
		r, c := sz[0], sz[1]
		a := mat.NewDense(r, c, nil)
		for i := range a.RawMatrix().Data {
			a.RawMatrix().Data[i] = rng.NormFloat64()
		}
		var svd mat.SVD
		svd.Factorize(a, mat.SVDThin)
		s := svd.Values(nil)
		for _, tau := range []float64{s[len(s)-1] / 2, s[len(s)/2], 2 * s[0]} {
			var got, want mat.Dense
			nuc, ok := SVTGram(&got, a, tau)
			if !ok {
				t.Fatalf("%d×%d τ=%v: declined", r, c, tau)
			}
			if _, err := core.SVT(&want, a, tau); err != nil {
				t.Fatal(err)
			}
			if !mat.EqualApprox(&got, &want, 1e-10) {
				t.Errorf("%d×%d τ=%v: differs from core.SVT", r, c, tau)
			}
			if wn := core.NuclearNorm(&want); math.Abs(nuc-wn) > 1e-10*math.Max(1, wn) {
				t.Errorf("%d×%d τ=%v: nuclear norm %v, want %v", r, c, tau, nuc, wn)
			}
		}
		var dst mat.Dense
		if _, ok := SVTGram(&dst, a, 1e-8*s[0]); ok {
			t.Errorf("%d×%d: accepted τ = 1e-8·σ_max", r, c)
		}
		// D_τ(0) = 0, into an empty and a filled dst.
		zero := mat.NewDense(r, c, nil)
		for _, dst := range []*mat.Dense{{}, mat.DenseCopyOf(a)} {
			if nuc, ok := SVTGram(dst, zero, 1); !ok || nuc != 0 || !mat.Equal(dst, zero) {
				t.Errorf("%d×%d: SVTGram of zero gives %v, %v", r, c, nuc, ok)
			}
		}
	}
}

// TestTridiag checks tridiag against gonum's Dsytrd (lower) on random
// symmetric matrices of one, two and several panels: the same T, τ and
// reflectors.
func TestTridiag(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	var impl gonum.Implementation
	for _, n := range []int{1, 2, 3, 31, 33, 70, 100} {
		A := make([]float64, n*n)
		for i := 0; i < n; i++ {
			for j := 0; j <= i; j++ {
				v := rng.NormFloat64()
				A[i*n+j], A[j*n+i] = v, v
			}
		}
		B := append([]float64(nil), A...)
		d, e, tau := make([]float64, n), make([]float64, max(n-1, 1)), make([]float64, max(n-1, 1))
		tridiag(n, A, d, e, tau)
		wd, we, wtau := make([]float64, n), make([]float64, max(n-1, 1)), make([]float64, max(n-1, 1))
		work := make([]float64, 1)
		impl.Dsytrd(blas.Lower, n, B, n, wd, we, wtau, work, -1)
		work = make([]float64, int(work[0]))
		impl.Dsytrd(blas.Lower, n, B, n, wd, we, wtau, work, len(work))
		if !floats.EqualApprox(d, wd, 1e-11) || !floats.EqualApprox(e[:max(n-1, 0)], we[:max(n-1, 0)], 1e-11) || !floats.EqualApprox(tau[:max(n-1, 0)], wtau[:max(n-1, 0)], 1e-11) {
			t.Errorf("n=%d: d, e or τ differ from Dsytrd", n)
			continue
		}
		for i := 0; i < n; i++ {
			for r := i + 2; r < n; r++ {
				if math.Abs(A[r*n+i]-B[r*n+i]) > 1e-11 {
					t.Errorf("n=%d: reflector %d entry %d is %v, Dsytrd's %v", n, i, r, A[r*n+i], B[r*n+i])
				}
			}
		}
	}
}

// TestSymEigCluster checks SymEig for all eigenvectors of a matrix whose
// eigenvalues form one tight cluster (60 spaced 10⁻⁵, three of them
// repeated) beside 20 spread ones: orthonormal vectors and residuals at
// rounding level, with re-orthogonalisation repeated only where a pass
// leaves less than 1/√2 of the vector.
func TestSymEigCluster(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const n = 80
	lam := make([]float64, n)
	for i := 0; i < 60; i++ {
		lam[i] = 1 + float64(i)*1e-5
	}
	lam[1], lam[2] = lam[0], lam[0]
	for i := 60; i < n; i++ {
		lam[i] = float64(i-59) / 4
	}
	var qr mat.QR
	g := mat.NewDense(n, n, nil)
	for i := range g.RawMatrix().Data {
		g.RawMatrix().Data[i] = rng.NormFloat64()
	}
	qr.Factorize(g)
	var Q, QL, c mat.Dense
	qr.QTo(&Q)
	QL.Mul(&Q, mat.NewDiagDense(n, lam))
	c.Mul(&QL, Q.T())
	a := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			a.SetSym(i, j, (c.At(i, j)+c.At(j, i))/2)
		}
	}
	vals, V, ok := SymEig(a, func(v []float64) (int, int) { return 0, len(v) })
	if !ok {
		t.Fatal("failed")
	}
	want := append([]float64(nil), lam...)
	sort.Float64s(want)
	if !floats.EqualApprox(vals, want, 1e-13) {
		t.Errorf("eigenvalues differ from the construction's")
	}
	var VtV, R mat.Dense
	VtV.Mul(V.T(), V)
	if !mat.EqualApprox(&VtV, toy.Eye(n), 1e-13) {
		t.Errorf("VᵀV ≠ I")
	}
	R.Mul(a, V)
	for j := 0; j < n; j++ {
		for i := 0; i < n; i++ {
			if r := math.Abs(R.At(i, j) - vals[j]*V.At(i, j)); r > 1e-13 {
				t.Fatalf("residual %v in vector %d", r, j)
			}
		}
	}
}
