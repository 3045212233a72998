package methods

import (
	"context"
	"math"

	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl/blas"
	"github.com/lrsdl/lrsdl/core"
	"github.com/lrsdl/lrsdl/methods/internal/dl"
)

// COPAR-X ADMM constants: ρ = tr(G)/(5K) to start, the over-relaxation
// α of core.LassoADMM, FISTA's cap and a residual tolerance of 3e-4.
// ADMM runs where the codes are dense (coparUpdateX; sparse codes take the
// path). The factor 1/5 of ρ was chosen by COPAR's Oxford Flower fit and
// the efficiency experiment's E-COPAR (bench/NOTES.md, coparADMMRhoDiv).
const (
	coparADMMRhoDiv  = 5
	coparADMMMaxIter = 200
	coparADMMTol     = 3e-4
)

// coparUpdateXADMM solves COPAR-X, min ½tr(XᵀH_cX) − tr(B_cᵀX) + λ‖X‖₁
// for every class c (coparSystem), by over-relaxed ADMM on X = Z
// (Boyd et al., §6.4, as core.LassoADMM) warm-started at Z = X:
//
//	X ← (H_c + ρI)⁻¹(B_c + ρ(Z − U)),  X̂ ← αX + (1 − α)Z,
//	Z ← S_{λ/ρ}(X̂ + U),  U ← U + X̂ − Z.
//
// H_c + ρI = A + E_S M_c E_Sᵀ with A = G + (1+ρ)I shared by all classes,
// E_S the columns of I on the rows S of P_c and M_c = G_SS − I, so by
// Woodbury (H_c + ρI)⁻¹ = W − W_{:S} Q_c W_{S:} with W = A⁻¹ (one Cholesky
// and inverse per call) and Q_c = (I + M_cW_SS)⁻¹M_c (|S|×|S|, symmetric).
// Each iteration is one product W·[R_c …] over the classes still
// iterating plus a rank-|S| correction per class; ρ is doubled or halved
// (W and the Q_c formed again) when the residuals summed over the classes
// differ by more than 10×, as in core.LassoADMM. A class stops when
// ‖X − Z‖ ≤ tol·max(‖X‖, ‖Z‖) and ρ‖Z − Z_prev‖ ≤ tol·‖ρU‖ (core.LassoADMM's
// test) or at the cap. The iterates are kept transposed, one row per
// sample, as coparUpdateX's. It returns false, X untouched, if W cannot
// be formed or an iterate is not finite; the caller then runs FISTA.
func coparUpdateXADMM(ctx context.Context, X []*mat.Dense, G, DtY *mat.Dense, part core.Partition, sp core.Partition, lambda float64) (bool, error) {
	K, N := DtY.Dims()
	C := len(X)
	gd := G.RawMatrix()
	var tr float64
	for i := 0; i < K; i++ {
		tr += gd.Data[i*gd.Stride+i]
	}
	if !(tr > 0 && tr <= math.MaxFloat64) {
		return false, nil
	}
	rho := tr / (coparADMMRhoDiv * float64(K))
	var W mat.Dense
	factor := func() bool {
		W.CloneFrom(G)
		w := W.RawMatrix()
		for i := 0; i < K; i++ {
			w.Data[i*w.Stride+i] += 1 + rho
		}
		T, ok := lapack64.Potrf(blas64.Symmetric{Uplo: gblas.Upper, N: K, Data: w.Data, Stride: w.Stride})
		if ok {
			_, ok = lapack64.Potri(T)
		}
		for i := 1; i < K; i++ {
			for j := 0; j < i; j++ {
				w.Data[i*w.Stride+j] = w.Data[j*w.Stride+i]
			}
		}
		return ok
	}
	if !factor() {
		return false, nil
	}
	type class struct {
		pr   [][2]int   // the atom ranges of P_c: class c's block, D_0's
		idx  []int      // the rows S of P_c
		V    *mat.Dense // Q_c·W_{S:}, |S|×K
		off  int        // first row in the packed Rt and Xt
		done bool
	}
	cl := make([]class, C)
	Bt := mat.NewDense(max(N, 1), K, nil)
	Zt := mat.NewDense(max(N, 1), K, nil)
	Ut := mat.NewDense(max(N, 1), K, nil)
	Rt := mat.NewDense(max(N, 1), K, nil)
	Xt := mat.NewDense(max(N, 1), K, nil)
	maxS := 0
	in := make([]bool, K) // in[i]: row i is in P_c of the class being set up
	for c := range cl {
		q := &cl[c]
		lo, hi := sp.Block(c)
		idx := dl.Rows(part, c)
		maxS = max(maxS, len(idx))
		for _, i := range idx {
			in[i] = true
		}
		for _, b := range []int{c, part.Blocks() - 1} {
			if a, e := part.Block(b); e > a {
				q.pr = append(q.pr, [2]int{a, e})
			}
		}
		for j := lo; j < hi; j++ {
			for i := 0; i < K; i++ {
				v := DtY.At(i, j)
				if in[i] {
					v *= 2
				}
				Bt.Set(j, i, v)
				Zt.Set(j, i, X[c].At(i, j-lo))
			}
		}
		for _, i := range idx {
			in[i] = false
		}
		q.done = hi == lo
		if q.done || len(idx) == 0 { // no correction if P_c is empty: H_c = G + I
			continue
		}
		q.idx = idx
	}
	// woodbury sets V_c for the classes still iterating.
	woodbury := func() bool {
		for c := range cl {
			q := &cl[c]
			if q.done || len(q.idx) == 0 {
				continue
			}
			idx := q.idx
			// Q_c = (I + M_cW_SS)⁻¹M_c, V_c = Q_c·W_{S:}.
			M := dl.Gather(G, idx, idx)
			A := dl.Gather(&W, idx, idx)
			var MA mat.Dense
			for i := range idx {
				M.Set(i, i, M.At(i, i)-1)
			}
			MA.Mul(M, A)
			for i := range idx {
				MA.Set(i, i, MA.At(i, i)+1)
			}
			var Q mat.Dense
			if err := Q.Solve(&MA, M); err != nil {
				return false
			}
			q.V = mat.NewDense(len(idx), K, nil)
			q.V.Mul(&Q, dl.Gather(&W, idx, nil))
		}
		return true
	}
	if !woodbury() {
		return false, nil
	}
	ys := make([]float64, maxS*max(N, 1))
	br, zr, ur, rr, xr := Bt.RawMatrix(), Zt.RawMatrix(), Ut.RawMatrix(), Rt.RawMatrix(), Xt.RawMatrix()
	thr := lambda / rho
	for it := 0; it < coparADMMMaxIter; it++ {
		if err := ctx.Err(); err != nil {
			return false, err
		}
		// Rt = Bt + ρ(Zt − Ut) for the classes still iterating, packed.
		n := 0
		for c := range cl {
			q := &cl[c]
			if q.done {
				continue
			}
			lo, hi := sp.Block(c)
			q.off = n
			for j := lo; j < hi; j++ {
				r := rr.Data[n*rr.Stride : n*rr.Stride+K]
				b := br.Data[j*br.Stride : j*br.Stride+K]
				z := zr.Data[j*zr.Stride : j*zr.Stride+K]
				u := ur.Data[j*ur.Stride : j*ur.Stride+K]
				for i := range r {
					r[i] = b[i] + rho*(z[i]-u[i])
				}
				n++
			}
		}
		if n == 0 {
			break
		}
		// Xt = Rt·W (W symmetric), one product.
		blas.Gemm(gblas.NoTrans, gblas.NoTrans, 1, Rt.Slice(0, n, 0, K).(*mat.Dense).RawMatrix(), W.RawMatrix(),
			0, Xt.Slice(0, n, 0, K).(*mat.Dense).RawMatrix())
		var rp2, rd2 float64 // residuals summed over the classes iterating
		for c := range cl {
			q := &cl[c]
			if q.done {
				continue
			}
			lo, hi := sp.Block(c)
			nc := hi - lo
			xc := Xt.Slice(q.off, q.off+nc, 0, K).(*mat.Dense)
			if len(q.pr) > 0 {
				// Xc −= Xc[:, S]·V_c (rows of Xt are samples).
				nS, _ := q.V.Dims()
				y := blas64.General{Rows: nc, Cols: nS, Stride: nS, Data: ys[:nc*nS]}
				for j := 0; j < nc; j++ {
					row := xr.Data[(q.off+j)*xr.Stride:]
					k := 0
					for _, S := range q.pr {
						k += copy(y.Data[j*nS+k:j*nS+k+S[1]-S[0]], row[S[0]:S[1]])
					}
				}
				blas64.Gemm(gblas.NoTrans, gblas.NoTrans, -1, y, q.V.RawMatrix(), 1, xc.RawMatrix())
			}
			var sums [5]float64
			for j := 0; j < nc; j++ {
				x := xr.Data[(q.off+j)*xr.Stride : (q.off+j)*xr.Stride+K]
				z := zr.Data[(lo+j)*zr.Stride : (lo+j)*zr.Stride+K]
				u := ur.Data[(lo+j)*ur.Stride : (lo+j)*ur.Stride+K]
				sums = core.ADMMShrink(x, z, u, core.ADMMRelax, thr, sums)
			}
			r2, s2, x2, z2, u2 := sums[0], sums[1], sums[2], sums[3], sums[4]
			if !(r2 <= math.MaxFloat64 && x2 <= math.MaxFloat64 && u2 <= math.MaxFloat64) {
				return false, nil
			}
			rp2 += r2
			rd2 += rho * rho * s2
			rp, rd := math.Sqrt(r2), rho*math.Sqrt(s2)
			if rp <= coparADMMTol*math.Max(math.Sqrt(math.Max(x2, z2)), 1e-300) && rd <= coparADMMTol*math.Max(rho*math.Sqrt(u2), 1e-300) {
				q.done = true
			}
		}
		// Balance ρ as core.LassoADMM: ×2 or ÷2 when the summed primal
		// and dual residuals differ by more than 10×.
		var scale float64
		switch {
		case rp2 > 100*rd2:
			scale = 2
		case rd2 > 100*rp2:
			scale = 0.5
		default:
			continue
		}
		rho *= scale
		thr = lambda / rho
		for i := range ur.Data {
			ur.Data[i] /= scale
		}
		if !factor() || !woodbury() {
			return false, nil
		}
	}
	for c := range X {
		lo, hi := sp.Block(c)
		if hi > lo {
			X[c].Copy(Zt.Slice(lo, hi, 0, K).T())
		}
	}
	return true, nil
}
