package methods

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/blas"
	"github.com/lrsdl/lrsdl/core"
	"github.com/lrsdl/lrsdl/methods/internal/dl"
	"github.com/lrsdl/lrsdl/methods/internal/lowrank"
)

// srrsTrain is one SRRS run in the coordinates of the SVD of X.
type srrsTrain struct {
	l1, l2, eta, mu, rho float64
	p                    int
	sp                   core.Partition // samples of each class
	sig                  []float64      // Σ, r
	Xh                   *mat.Dense     // X̂ = ΣVᵀ, r×N
	Z, J, E, Y1, Y2      *mat.Dense     // r×N
	Ph                   *mat.Dense     // P̂, r×p
	R, T                 mat.Dense      // r×N work
	nucJ                 float64        // ‖J‖_*, from the SVT
	res1, res2, xnorm    float64        // residual norms of the last step, ‖X̂‖_F
	// pDone delivers the end of a P step running on its own goroutine
	// (nil when none runs): nil, or the value it panicked with.
	pDone chan any
}

func newSRRSTrain(Xh *mat.Dense, sig []float64, sp core.Partition, o SRRSOptions) *srrsTrain {
	r, N := Xh.Dims()
	s := &srrsTrain{l1: o.Lambda1, l2: lit(o.Lambda2), eta: lit(o.Eta), mu: o.Mu, rho: o.Rho, p: o.P, sp: sp, sig: sig, Xh: Xh}
	if m := 4 * s.l2 * (1 - s.eta); s.mu < m {
		s.mu = m
	}
	for _, m := range []**mat.Dense{&s.Z, &s.J, &s.E, &s.Y1, &s.Y2} {
		*m = mat.NewDense(r, N, nil)
	}
	s.xnorm = mat.Norm(Xh, 2)
	s.stepPAt(Xh)
	return s
}

// means returns the class means (r×C) and the global mean (r) of the
// columns of a.
func (s *srrsTrain) means(a *mat.Dense) (*mat.Dense, []float64) {
	r, N := a.Dims()
	C := s.sp.Blocks()
	mc := mat.NewDense(r, C, nil)
	blas.BlockMeans(mc.RawMatrix(), a.RawMatrix(), s.sp)
	m := make([]float64, r)
	for i := range m {
		for c := 0; c < C; c++ {
			m[i] += mc.At(i, c) * float64(s.sp.Size(c))
		}
		m[i] /= float64(N)
	}
	return mc, m
}

// quadM returns Q·M·Qᵀ (r×r) for Q r×N.
func (s *srrsTrain) quadM(Q *mat.Dense) *mat.SymDense {
	r, _ := Q.Dims()
	mc, m := s.means(Q)
	W := mat.NewSymDense(r, nil)
	// (1+η)(Q − Q̄_c)(Q − Q̄_c)ᵀ
	Qw := mat.DenseCopyOf(Q)
	for c := 0; c < s.sp.Blocks(); c++ {
		s0, s1 := s.sp.Block(c)
		for i := 0; i < r; i++ {
			row := Qw.RawRowView(i)[s0:s1]
			for j := range row {
				row[j] -= mc.At(i, c)
			}
		}
	}
	W.SymOuterK(1+s.eta, Qw)
	// (η−1)Σ_c n_c(q̄_c − q̄)(q̄_c − q̄)ᵀ + ηN·q̄q̄ᵀ
	v := mat.NewVecDense(r, nil)
	for c := 0; c < s.sp.Blocks(); c++ {
		for i := 0; i < r; i++ {
			v.SetVec(i, mc.At(i, c)-m[i])
		}
		W.SymRankOne(W, (s.eta-1)*float64(s.sp.Size(c)), v)
	}
	W.SymRankOne(W, s.eta*float64(s.sp.Len()), mat.NewVecDense(r, m))
	return W
}

// fisher returns f = tr(P̂ᵀQ·M·QᵀP̂).
func (s *srrsTrain) fisher(Q *mat.Dense) float64 {
	W := s.quadM(Q)
	var t mat.Dense
	t.Mul(W, s.Ph)
	return core.Dot(&t, s.Ph)
}

// stepPAt sets P̂ to the eigenvectors of the p smallest eigenvalues of
// Q·M·Qᵀ (lowrank.SymEigLow; mat.EigenSym if that fails).
func (s *srrsTrain) stepPAt(Q *mat.Dense) {
	W := s.quadM(Q)
	if _, V, ok := lowrank.SymEigLow(W, s.p); ok {
		s.Ph = V
		return
	}
	var eig mat.EigenSym
	if !eig.Factorize(W, true) {
		panic("methods: SRRS eigendecomposition did not converge")
	}
	var V mat.Dense
	eig.VectorsTo(&V) // ascending eigenvalues
	r, _ := V.Dims()
	s.Ph = mat.DenseCopyOf(V.Slice(0, r, 0, s.p))
}

// sigQ returns ΣA for A r×N.
func (s *srrsTrain) sigQ(a *mat.Dense) *mat.Dense {
	q := mat.DenseCopyOf(a)
	for i, v := range s.sig {
		row := q.RawRowView(i)
		for j := range row {
			row[j] *= v
		}
	}
	return q
}

// stepZ solves the Z̃ step exactly on the three projectors. On projector
// k the matrix is T_k = D + c_k·BBᵀ, D = Σ² + I diagonal, B = ΣP̂ (r×p),
// c_k = 2λ2m_k/μ, and by the Woodbury identity
//
//	T_k⁻¹ = D⁻¹ − c_k·D⁻¹B·K_k⁻¹·BᵀD⁻¹,  K_k = I + c_k·BᵀD⁻¹B (p×p),
//
// T_k being positive definite exactly when K_k is. With F = BᵀD⁻¹R split
// on the projectors (F − F̄_c, F̄_c − F̄, F̄),
//
//	Z̃ = D⁻¹(R − B·Σ_k c_k·K_k⁻¹·FΠ_k),
//
// two r×p×N products instead of r×r factorisations.
func (s *srrsTrain) stepZ() error {
	s.waitP()
	r, N := s.Xh.Dims()
	// R = Σ(X̂ − Ê + Y1/μ) + J − Y2/μ
	R := &s.R
	if R.IsEmpty() {
		R.ReuseAs(r, N)
	}
	rr, xr, er, y1, jr, y2 := R.RawMatrix(), s.Xh.RawMatrix(), s.E.RawMatrix(), s.Y1.RawMatrix(), s.J.RawMatrix(), s.Y2.RawMatrix()
	for i := 0; i < r; i++ {
		for j := 0; j < N; j++ {
			k := i*rr.Stride + j
			rr.Data[k] = s.sig[i]*(xr.Data[k]-er.Data[k]+y1.Data[k]/s.mu) + jr.Data[k] - y2.Data[k]/s.mu
		}
	}
	p := s.p
	B := s.sigQ(s.Ph)
	DiB := mat.DenseCopyOf(B) // D⁻¹B
	for i, v := range s.sig {
		floats.Scale(1/(v*v+1), DiB.RawRowView(i))
	}
	var G mat.Dense
	G.Mul(B.T(), DiB) // BᵀD⁻¹B
	F := mat.NewDense(p, N, nil)
	F.Mul(DiB.T(), R)
	// solve sets b = c·K⁻¹b, K = I + c·G.
	solve := func(c float64, b *mat.Dense) error {
		if c == 0 {
			b.Zero()
			return nil
		}
		K := mat.NewSymDense(p, nil)
		for i := 0; i < p; i++ {
			for j := i; j < p; j++ {
				K.SetSym(i, j, c*(G.At(i, j)+G.At(j, i))/2)
			}
			K.SetSym(i, i, K.At(i, i)+1)
		}
		var ch mat.Cholesky
		if !ch.Factorize(K) {
			return fmt.Errorf("methods: SRRS Z step is not positive definite (η=%v, μ=%v)", s.eta, s.mu)
		}
		if err := ch.SolveTo(b, b); err != nil {
			return err
		}
		b.Scale(c, b)
		return nil
	}
	mc, m := s.means(F)
	C := s.sp.Blocks()
	// FΠ_W = F − F̄_c
	for c := 0; c < C; c++ {
		s0, s1 := s.sp.Block(c)
		for i := 0; i < p; i++ {
			row := F.RawRowView(i)[s0:s1]
			for j := range row {
				row[j] -= mc.At(i, c)
			}
		}
	}
	scale := 2 * s.l2 / s.mu
	if err := solve(scale*(1+s.eta), F); err != nil {
		return err
	}
	for c := 0; c < C; c++ { // class means minus the global mean
		for i := 0; i < p; i++ {
			mc.Set(i, c, mc.At(i, c)-m[i])
		}
	}
	if err := solve(scale*(s.eta-1), mc); err != nil {
		return err
	}
	m1 := mat.NewDense(p, 1, m)
	if err := solve(scale*s.eta, m1); err != nil {
		return err
	}
	for c := 0; c < C; c++ {
		s0, s1 := s.sp.Block(c)
		for i := 0; i < p; i++ {
			row := F.RawRowView(i)[s0:s1]
			add := mc.At(i, c) + m1.At(i, 0)
			for j := range row {
				row[j] += add
			}
		}
	}
	// Z̃ = D⁻¹(R − B·F)
	s.Z.Mul(B, F)
	s.Z.Sub(R, s.Z)
	for i, v := range s.sig {
		floats.Scale(1/(v*v+1), s.Z.RawRowView(i))
	}
	return nil
}

// startP runs the P step at Q (stepPAt) on its own goroutine; waitP
// waits for it. Nothing before the next Z step reads P̂ (the SVT of
// Z̃ + Y2/μ and the multiplier updates do not), so the P step of one
// iteration overlaps the SVT of the next, and P̂ is the same as when
// computed in turn.
func (s *srrsTrain) startP(Q *mat.Dense) {
	s.waitP()
	done := make(chan any, 1)
	s.pDone = done
	go func() {
		defer func() { done <- recover() }()
		s.stepPAt(Q)
	}()
}

// waitP waits for the P step started by startP, if any, and repeats its
// panic.
func (s *srrsTrain) waitP() {
	if s.pDone == nil {
		return
	}
	v := <-s.pDone
	s.pDone = nil
	if v != nil {
		panic(v)
	}
}

// step runs one ALM iteration. Its P step may still run when it returns
// (startP); stepZ, cost and waitP wait for it.
func (s *srrsTrain) step() error {
	s.T.Reset()
	s.T.Scale(1/s.mu, s.Y2)
	s.T.Add(&s.T, s.Z)
	if nuc, ok := lowrank.SVTGram(s.J, &s.T, 1/s.mu); ok {
		s.nucJ = nuc
	} else {
		if _, err := core.SVT(s.J, &s.T, 1/s.mu); err != nil {
			return err
		}
		s.nucJ = core.NuclearNorm(s.J)
	}
	if err := s.stepZ(); err != nil {
		return err
	}
	SZ := s.sigQ(s.Z)
	// Ê = prox(X̂ − ΣZ̃ + Y1/μ)
	s.T.Scale(1/s.mu, s.Y1)
	s.T.Add(&s.T, s.Xh)
	s.T.Sub(&s.T, SZ)
	core.L21Prox(s.E, &s.T, s.l1/s.mu)
	s.startP(SZ) // reads SZ only
	// Y1 += μ(X̂ − ΣZ̃ − Ê), Y2 += μ(Z̃ − J)
	res := &s.T
	res.Sub(s.Xh, SZ)
	res.Sub(res, s.E)
	s.res1 = mat.Norm(res, 2)
	res.Scale(s.mu, res)
	s.Y1.Add(s.Y1, res)
	res.Sub(s.Z, s.J)
	s.res2 = mat.Norm(res, 2)
	res.Scale(s.mu, res)
	s.Y2.Add(s.Y2, res)
	s.mu = math.Min(s.rho*s.mu, srrsMuMax)
	return nil
}

// gap returns the larger residual norm of the last step, ‖X̂ − ΣZ̃ − Ê‖_F
// or ‖Z̃ − J‖_F, relative to ‖X̂‖_F.
func (s *srrsTrain) gap() float64 {
	return math.Max(s.res1, s.res2) / s.xnorm
}

// cost returns the objective at (J, Ê, P̂): terms "nuclear" ‖J‖_*, "l21"
// λ1‖Ê‖_{2,1} and "fisher" λ2·f(P̂, J).
func (s *srrsTrain) cost() lrsdl.Cost {
	s.waitP()
	terms := []lrsdl.Term{
		{Name: "nuclear", Value: s.nucJ},
		{Name: "l21", Value: s.l1 * core.L21(s.E)},
		{Name: "fisher", Value: s.l2 * s.fisher(s.sigQ(s.J))},
	}
	return lrsdl.NewCost(terms...)
}

// srrsReduce returns the thin SVD X = UΣVᵀ truncated to the numerical
// rank r: U (d×r), Σ (descending) and X̂ = ΣVᵀ = UᵀX (r×N). When d is well
// above N it factors the r×N Yr of X = Q·Yr (dl.ReduceSpan) and U = Q·U_R.
// The factor A (X or Yr) is decomposed through its Gram matrix when that
// is well conditioned (srrsGramSVD), otherwise by mat.SVD (srrsSVD), on
// its own goroutine, so that a cancelled ctx returns ctx.Err() at once.
func srrsReduce(ctx context.Context, X *mat.Dense, set dl.Settings) (U *mat.Dense, sig []float64, Xh *mat.Dense, err error) {
	Q, R, err := dl.ReduceSpan(ctx, X, set)
	if err != nil {
		return nil, nil, nil, err
	}
	A := X
	if Q != nil {
		A = R
	}
	type result struct {
		U, Xh *mat.Dense
		sig   []float64
		ok    bool
	}
	done := make(chan *result, 1)
	go func() {
		var f result
		f.U, f.sig, f.Xh, f.ok = srrsGramSVD(A)
		if !f.ok {
			f.U, f.sig, f.Xh, f.ok = srrsSVD(A)
		}
		done <- &f
	}()
	var f *result
	select {
	case f = <-done:
	case <-ctx.Done():
		return nil, nil, nil, ctx.Err()
	}
	if !f.ok {
		return nil, nil, nil, fmt.Errorf("methods: SRRS: the SVD of the training set did not converge")
	}
	U = f.U
	if Q != nil {
		U = Q.Expand(f.U)
	}
	return U, f.sig, f.Xh, nil
}

// srrsSVD returns the thin SVD A = UΣVᵀ (mat.SVD) truncated to the
// numerical rank r, the singular values above max(d, N)·10⁻¹⁵·σ_max:
// U (d×r), Σ and X̂ = UᵀA (r×N); ok false when the SVD fails.
func srrsSVD(A *mat.Dense) (U *mat.Dense, sig []float64, Xh *mat.Dense, ok bool) {
	var svd mat.SVD
	if !svd.Factorize(A, mat.SVDThinU) {
		return nil, nil, nil, false
	}
	d, N := A.Dims()
	sv := svd.Values(nil)
	r := 0
	for _, v := range sv {
		if v > sv[0]*float64(max(d, N))*1e-15 {
			r++
		}
	}
	var u mat.Dense
	svd.UTo(&u)
	U = mat.DenseCopyOf(u.Slice(0, d, 0, r))
	Xh = mat.NewDense(r, N, nil)
	Xh.Mul(U.T(), A)
	return U, sv[:r], Xh, true
}

// srrsGramMin is the least λ_min/λ_max of the Gram matrix AAᵀ for which
// srrsGramSVD decomposes it. Its computed eigenvalues and eigenvectors
// carry errors of about ε·λ_max, so σ_i and the orthogonality of the rows
// of X̂ hold to about ε/srrsGramMin ≈ 2·10⁻¹⁰ relative, and every σ is
// far above srrsSVD's rank threshold.
const srrsGramMin = 1e-6

// srrsGramSVD returns the thin SVD of the r×N A, r ≤ N, from the
// eigendecomposition AAᵀ = UΛUᵀ (lowrank.SymEig, all vectors): U (r×r, Λ
// descending), X̂ = UᵀA = ΣVᵀ (r×N) and σ_i the norm of row i of X̂. It
// reports false when r > N, when λ_min < srrsGramMin·λ_max (A
// rank-deficient or ill-conditioned: srrsSVD's case) or when the
// iteration fails. Tridiagonalisation and inverse iteration take a
// fraction of the time the bidiagonal QR iteration of mat.SVD spends
// accumulating U.
func srrsGramSVD(A *mat.Dense) (U *mat.Dense, sig []float64, Xh *mat.Dense, ok bool) {
	r, N := A.Dims()
	if r == 0 || r > N {
		return nil, nil, nil, false
	}
	var G mat.SymDense
	G.SymOuterK(1, A)
	_, V, ok := lowrank.SymEig(&G, func(v []float64) (int, int) {
		if top := v[len(v)-1]; !(v[0] >= srrsGramMin*top) || !(top > 0) || math.IsInf(top, 0) {
			return 0, 0
		}
		return 0, len(v)
	})
	if !ok || V == nil {
		return nil, nil, nil, false
	}
	U = mat.NewDense(r, r, nil)
	for j := 0; j < r; j++ {
		U.ColView(j).(*mat.VecDense).CopyVec(V.ColView(r - 1 - j))
	}
	Xh = mat.NewDense(r, N, nil)
	Xh.Mul(U.T(), A)
	sig = make([]float64, r)
	for i := range sig {
		sig[i] = floats.Norm(Xh.RawRowView(i), 2)
	}
	return U, sig, Xh, true
}
