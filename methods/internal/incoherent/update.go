package incoherent

import (
	"context"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl/core"
	"github.com/lrsdl/lrsdl/methods/internal/dl"
)

// Dictionary update shared by DLSI and COPAR: each (sub-)dictionary D (d×k)
// solves
//
//	min_D tr(F·DᵀD) − 2tr(E·Dᵀ) + η‖AᵀD‖²_F   subject to ‖dᵢ‖₂ ≤ 1,     (P)
//
// where the columns of A (d×r) are the atoms of the other sub-dictionaries,
// so that η‖AᵀD‖² = η·tr(Dᵀ(AAᵀ)D) is the cross-incoherence term.

const (
	incoherentOrigMaxSweeps = 20   // O-: column sweeps per call
	incoherentOrigTol       = 1e-6 // O-: stop when ‖ΔD‖_F ≤ tol·‖D‖_F over a sweep
	incoherentADMMSweeps    = 10   // E-: column sweeps of the ODL step per ADMM iteration
	incoherentADMMTol       = 1e-6 // E-: stop when ‖D − Z‖_F ≤ tol·max(1, ‖D‖_F)
)

// woodburyInvMax: E- inverts the Woodbury matrix when r ≤ woodburyInvMax·k
// (dl.Settings.NoWoodburyInverse: never).
const woodburyInvMax = 20

// incoherentADMMMaxIter and incoherentADMMWarmIter are E-'s ADMM iterations per
// call, from a zero dual and from the dual kept by the last call on the
// block (dlsiUpdateD's duals), which starts near the solution
// (BenchmarkDLSIFit).
const incoherentADMMMaxIter, incoherentADMMWarmIter = 20, 5

// Inverse keeps N = (ρI + 2ηAAᵀ)⁻¹ (d×d) for A the atoms outside
// the block being updated, while a pass updates the blocks of D in turn
// with one ρ: moving from block b to b+1 adds the new atoms of b to A and
// removes those of b+1, a rank-(|b|+|b+1|) Woodbury update of N (4d²(|b|+|b+1|)
// flops) instead of a factorisation per block. The Z step of E-DLSI-D is
// then Z = ρN·V, 2d²k flops per ADMM iteration. It pays when the other
// atoms number at least about d/2 (many classes, small d).
type Inverse struct {
	N        mat.Dense
	rho, eta float64
	b        int // block whose complement N inverts
	w, t, g  mat.Dense
	m        mat.Dense
}

// UseInverse reports whether a pass over part with atoms of
// dimension d should keep an Inverse.
func UseInverse(d int, part core.Partition) bool {
	return part.Blocks() > 2 && 2*part.Len() >= d
}

// init sets N for block 0 of part from scratch (d²r + d³ flops).
func (s *Inverse) Init(D *mat.Dense, part core.Partition, rho, eta float64) bool {
	d, _ := D.Dims()
	s.rho, s.eta, s.b = rho, eta, 0
	M := mat.NewSymDense(d, nil)
	M.SymOuterK(2*eta, OtherAtoms(D, part, 0))
	for i := 0; i < d; i++ {
		M.SetSym(i, i, M.At(i, i)+rho)
	}
	var chol mat.Cholesky
	var inv mat.SymDense
	if !chol.Factorize(M) || chol.InverseTo(&inv) != nil {
		return false
	}
	s.N.Reset()
	s.N.CloneFrom(&inv)
	return true
}

// next moves N from block s.b to block s.b+1 of part, with block s.b of D
// at its updated value:
//
//	N ← N − NW(S⁻¹ + WᵀNW)⁻¹WᵀN,  W = [D_b  D_{b+1}],  S = 2η·diag(I, −I).
func (s *Inverse) Next(D *mat.Dense, part core.Partition) bool {
	d, _ := D.Dims()
	lo, hi := part.Block(s.b)
	lo1, hi1 := part.Block(s.b + 1)
	s.b++
	p, q := hi-lo, hi1-lo1
	if p+q == 0 {
		return true
	}
	s.w.Reset()
	s.w.ReuseAs(d, p+q)
	if p > 0 {
		s.w.Slice(0, d, 0, p).(*mat.Dense).Copy(D.Slice(0, d, lo, hi))
	}
	if q > 0 {
		s.w.Slice(0, d, p, p+q).(*mat.Dense).Copy(D.Slice(0, d, lo1, hi1))
	}
	s.t.Reset()
	dl.MulDense(&s.t, &s.N, &s.w)
	s.m.Reset()
	dl.MulDense(&s.m, s.w.T(), &s.t)
	for i := 0; i < p+q; i++ {
		v := 1 / (2 * s.eta)
		if i >= p {
			v = -v
		}
		s.m.Set(i, i, s.m.At(i, i)+v)
	}
	// G = (S⁻¹ + WᵀNW)⁻¹(NW)ᵀ, then N −= NW·G.
	s.g.Reset()
	if err := s.g.Solve(&s.m, s.t.T()); err != nil {
		return false
	}
	blas64.Gemm(blas.NoTrans, blas.NoTrans, -1, s.t.RawMatrix(), s.g.RawMatrix(), 1, s.N.RawMatrix())
	return true
}

// Objective returns the objective of (P) at D.
func Objective(D, E, F, A *mat.Dense, eta float64) float64 {
	var ad mat.Dense
	dl.MulDense(&ad, A.T(), D)
	return core.DictObjective(D, E, F) + eta*core.Dot(&ad, &ad)
}

// Update updates D in place towards the solution of (P), given
// the other atoms A. The original algorithm (O-DLSI-D of Ramirez et al.)
// sweeps over the columns, solving for column j exactly with the others fixed:
//
//	min_d F_jj‖d‖² − 2bᵀd + η·dᵀAAᵀd,  ‖d‖ ≤ 1,  b = e_j − D·f_j + F_jj·d_j,
//
// whose solution is d = (F_jj·I + ηAAᵀ + μI)⁻¹b with the smallest μ ≥ 0
// giving ‖d‖ ≤ 1 (a trust-region subproblem; the paper's printed
// normalisation u/‖u‖₂² is not a projection, and u/‖u‖₂ is exact only when
// AAᵀ is a multiple of I). μ is found by Newton's method on 1/‖d(μ)‖ − 1,
// one Cholesky factorisation of a d×d matrix per step.
//
// The efficient algorithm (E-DLSI-D, Vu & Monga) runs ADMM on the split
// D = Z with the constraint on D (core.ADMMDict) and the incoherence on Z:
//
//	Z = argmin_Z η‖AᵀZ‖² + ρ/2‖Z − V‖² = ρ(2ηAAᵀ + ρI)⁻¹V,
//
// (the paper omits the factor ρ), with ρ = tr(F)/(2k), on the scale of
// the data term's curvature. When A has fewer columns r than rows d, the Woodbury
// identity gives Z = V − A(ρ/(2η)·I + AᵀA)⁻¹AᵀV, an r×r factorisation and
// O(rdk + r²k) per ADMM iteration instead of a d×d inverse and O(d²k). The result
// is kept only if it lowers the objective of (P), so the update never
// increases the cost even when ADMM stops early.
func Update(ctx context.Context, D, E, F, A *mat.Dense, eta float64, original bool, set dl.Settings) error {
	return UpdateGram(ctx, D, E, F, A, nil, nil, 0, nil, nil, eta, original, set)
}

// UpdateGram is Update for D = block b of part
// of the dictionary whose Gram matrix g keeps, or for D alone if g is nil.
// With g, AᵀA and ‖AᵀD‖² of the objective check come from g.G, and g is
// refreshed for the new D (one d×K×k product instead of AᵀD before and
// after and the update of g). A non-nil dual warm-starts E-'s ADMM
// (core.ADMMOptions.Dual; fewer iterations if not empty) and receives its
// final dual, or is emptied when the result is rejected; callers keep one per block across outer
// iterations, where the multiplier of D = Z changes little. A non-nil inv
// holds (ρI + 2ηAAᵀ)⁻¹ and sets ρ; with inv and g, A may be nil (it is
// then never formed: the objective comes from g).
func UpdateGram(ctx context.Context, D, E, F, A *mat.Dense, g *Gram, part core.Partition, b int, dual *mat.Dense, inv *Inverse, eta float64, original bool, set dl.Settings) error {
	if original {
		return incoherentSweeps(ctx, D, E, F, A, eta)
	}
	d, k := D.Dims()
	var r int
	if A != nil {
		_, r = A.Dims()
	} else {
		r = part.Len() - k
	}
	objective := func() float64 {
		if g == nil {
			return Objective(D, E, F, A, eta)
		}
		return core.DictObjective(D, E, F) + eta*g.OffBlockSq(part, b)
	}
	ws := new(workspace)
	if g != nil {
		ws = &g.work
	}
	before := objective()
	D0 := &ws.d0
	D0.CloneFrom(D)
	// ρ on the scale of the data term, so ADMM converges in few iterations
	// (half the mean F_jj; DLSI's and COPAR's Oxford Flower fits).
	rho := mat.Trace(F) / float64(2*k)
	if rho <= 0 {
		rho = 1
	}
	wait := func() {}
	var prox core.ProxFunc
	switch {
	case eta == 0 || r == 0:
		prox = func(z, v *mat.Dense, _ float64) { z.Copy(v) }
	case inv != nil:
		rho = inv.rho
		prox = func(z, v *mat.Dense, rho float64) {
			dl.MulDense(z, &inv.N, v)
			floats.Scale(rho, z.RawMatrix().Data) // z is contiguous
		}
	case r < d:
		// S = ρ/(2η)·I + AᵀA = UᵀU, factorised on another goroutine while
		// ADMM's first D step runs (woodburyFactor); for r ≤ woodburyInvMax·k, S⁻¹
		// is formed (r³ once) and applied by one product per call (r²k):
		// the two triangular solves run slowly on few right-hand sides.
		// Larger r keeps the solves.
		f := &ws.fac
		f.start(g, A, part, b, r, rho/(2*eta), r <= woodburyInvMax*k && !set.NoWoodburyInverse)
		wait = f.wg.Wait
		atv, w := &ws.atv, &ws.w
		prox = func(z, v *mat.Dense, _ float64) {
			atv.Reset()
			dl.MulDense(atv, A.T(), v) // while the first call's factorisation may still run
			f.wg.Wait()
			if !f.ok {
				z.Copy(v) // unreachable for ρ > 0; the objective check undoes it
				return
			}
			if f.sinv.IsEmpty() {
				// UᵀU·w = Aᵀv.
				w.CloneFrom(atv)
				wr := w.RawMatrix()
				blas64.Trsm(blas.Left, blas.Trans, 1, f.u, wr)
				blas64.Trsm(blas.Left, blas.NoTrans, 1, f.u, wr)
			} else {
				w.Reset()
				dl.MulDense(w, &f.sinv, atv)
			}
			dl.MulDense(z, A, w)
			z.Sub(v, z)
		}
	default:
		var inv mat.Dense // ρ(2ηAAᵀ + ρI)⁻¹, formed on the first call
		prox = func(z, v *mat.Dense, rho float64) {
			if inv.IsEmpty() {
				M := mat.NewSymDense(d, nil)
				M.SymOuterK(2*eta, A)
				for i := 0; i < d; i++ {
					M.SetSym(i, i, M.At(i, i)+rho)
				}
				var chol mat.Cholesky
				var Mi mat.SymDense
				if !chol.Factorize(M) || chol.InverseTo(&Mi) != nil {
					z.Copy(v) // unreachable for ρ > 0; the objective check undoes it
					return
				}
				inv.Scale(rho, &Mi)
			}
			dl.MulDense(z, &inv, v)
		}
	}
	maxIter := incoherentADMMMaxIter
	if dual != nil && !dual.IsEmpty() {
		maxIter = incoherentADMMWarmIter
	}
	err := ws.admm.Update(ctx, D, E, F, prox, core.ADMMOptions{Rho: rho, MaxIter: maxIter, Tol: incoherentADMMTol,
		Update: core.UpdateDictOptions{MaxIter: incoherentADMMSweeps}, Dual: dual})
	wait() // the factorisation reads g.G
	if g != nil {
		g.refresh(g.D, part, b)
	}
	if err != nil || !(objective() <= before) {
		D.Copy(D0)
		if dual != nil {
			dual.Reset()
		}
		if g != nil {
			g.refresh(g.D, part, b)
		}
	}
	return err
}

// incoherentSweeps is the original column-by-column solver of (P).
func incoherentSweeps(ctx context.Context, D, E, F, A *mat.Dense, eta float64) error {
	dim, k := D.Dims()
	B := mat.NewSymDense(dim, nil)
	if _, r := A.Dims(); r > 0 {
		B.SymOuterK(eta, A)
	}
	M := mat.NewSymDense(dim, nil)
	var chol mat.Cholesky
	b := mat.NewVecDense(dim, nil)
	u := mat.NewVecDense(dim, nil)
	t := mat.NewVecDense(dim, nil)
	old := make([]float64, dim)
	oldv := mat.NewVecDense(dim, old)
	for sweep := 0; sweep < incoherentOrigMaxSweeps; sweep++ {
		var change, norm float64
		for j := 0; j < k; j++ {
			if err := ctx.Err(); err != nil {
				return err
			}
			fjj := F.At(j, j)
			if fjj <= 0 {
				continue // unused atom
			}
			mat.Col(old, j, D)
			b.MulVec(D, F.ColView(j))
			b.SubVec(E.ColView(j), b)
			b.AddScaledVec(b, fjj, oldv)
			mu := 0.0
			for it := 0; it < 100; it++ {
				if err := ctx.Err(); err != nil {
					return err
				}
				M.CopySym(B)
				for i := 0; i < dim; i++ {
					M.SetSym(i, i, M.At(i, i)+fjj+mu)
				}
				if !chol.Factorize(M) {
					break // cannot happen: M ⪰ F_jj·I ≻ 0
				}
				if err := chol.SolveVecTo(u, b); err != nil {
					break
				}
				nu := mat.Norm(u, 2)
				if nu <= 1 && mu == 0 || math.Abs(nu-1) <= 1e-12 || nu == 0 {
					break
				}
				// Newton step on φ(μ) = 1 − 1/‖u(μ)‖ (Moré–Sorensen):
				// ‖u‖' = −uᵀ(M+μI)⁻¹u/‖u‖.
				if err := chol.SolveVecTo(t, u); err != nil {
					break
				}
				step := nu * nu / mat.Dot(u, t) * (nu - 1)
				if !(step > 1e-15*(fjj+mu)) {
					break
				}
				mu += step
			}
			s := math.Max(1, mat.Norm(u, 2))
			for i := 0; i < dim; i++ {
				v := u.AtVec(i) / s
				change += (v - old[i]) * (v - old[i])
				norm += v * v
				D.Set(i, j, v)
			}
		}
		if math.Sqrt(change) <= incoherentOrigTol*math.Sqrt(norm) {
			break
		}
	}
	return nil
}

// OffBlockSq returns Σ_{b≠c} ‖G_bc‖²_F for the Gram matrix G of atoms split
// into blocks by part, that is Σ_c Σ_{b≠c} ‖D_bᵀD_c‖²_F.
func OffBlockSq(G *mat.Dense, part core.Partition) float64 {
	s := core.Dot(G, G)
	for c := 0; c < part.Blocks(); c++ {
		lo, hi := part.Block(c)
		for i := lo; i < hi; i++ {
			for j := lo; j < hi; j++ {
				v := G.At(i, j)
				s -= v * v
			}
		}
	}
	return math.Max(s, 0)
}
