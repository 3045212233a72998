package online

import (
	"context"

	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl/blas"
	"github.com/lrsdl/lrsdl/core"
)

// work holds the workspaces of a minibatch step, reused between batches.
type work struct {
	Db, G, MA, B0m    mat.Dense // [D D0], D̄ᵀD̄, M(DᵀD)+2λ2I, 2D0ᵀD0+λ2I
	lin, T, MX, Yb, V mat.Dense // per batch
	Xb                mat.Dense // codes [X; X0] of the batch
	F, Dn             mat.Dense // M(A); candidate D0
	Mc                mat.Dense
	m, m0             []float64
	sp                core.Partition // samples of each class in the batch
	// The selection of a batch's samples by load.
	was                     []bool
	col                     []float64
	sel, cls, order, sorted []int
	fista                   core.FISTA
	odl                     core.DictUpdater
	admm                    core.ADMMDictWorkspace
	svt                     core.SVTWorkspace
}

// reuse returns dst resized to r×c (r, c > 0), keeping its storage when
// it is large enough; the entries are zero after a resize only.
func reuse(dst *mat.Dense, r, c int) *mat.Dense {
	if rr, cc := dst.Dims(); rr != r || cc != c {
		dst.Reset()
		dst.ReuseAs(r, c)
	}
	return dst
}

func gemm(tA, tB gblas.Transpose, alpha float64, a, b mat.Matrix, beta float64, c *mat.Dense) {
	blas.Gemm(tA, tB, alpha, raw(a), raw(b), beta, c.RawMatrix())
}

func raw(a mat.Matrix) blas64.General { return a.(*mat.Dense).RawMatrix() }

// lipschitz returns a Lipschitz constant of the gradient of the X step's
// objective. The Hessian for a sample of class c is the positive
// semidefinite block matrix
//
//	[M(DᵀD) + 2λ2I    Q_c        ]
//	[Q_cᵀ             2D0ᵀD0 + λ2I],
//
// whose largest eigenvalue is at most the sum of those of its diagonal
// blocks, so L = λmax(M(DᵀD) + 2λ2I) + λmax(2D0ᵀD0 + λ2I), for every c
// (exact for FDDL). The power iterations start cold, so L depends on D̄
// alone.
func (w *work) lipschitz(k0 int) float64 {
	var pi core.PowerIter
	_, L := pi.MaxEig(&w.MA)
	if k0 > 0 {
		var p0 core.PowerIter
		_, l0 := p0.MaxEig(&w.B0m)
		L += l0
	}
	return L
}

// prepare computes the products of D̄ that the X step of every batch uses
// until the next dictionary update, and returns the Lipschitz constant.
func (w *work) prepare(s *state, lambda2 float64) float64 {
	d, K, k0 := s.d, s.K(), s.k0()
	Db := reuse(&w.Db, d, K+k0)
	Db.Slice(0, d, 0, K).(*mat.Dense).Copy(&s.D)
	if k0 > 0 {
		Db.Slice(0, d, K, K+k0).(*mat.Dense).Copy(&s.D0)
	}
	G := reuse(&w.G, K+k0, K+k0)
	gemm(gblas.Trans, gblas.NoTrans, 1, Db, Db, 0, G)
	MA := reuse(&w.MA, K, K)
	MA.Copy(G.Slice(0, K, 0, K))
	blas.DoubleDiagBlocks(MA.RawMatrix(), s.part, s.part)
	for i := 0; i < K; i++ {
		MA.Set(i, i, MA.At(i, i)+2*lambda2)
	}
	if k0 > 0 {
		B0m := reuse(&w.B0m, k0, k0)
		B0m.Scale(2, G.Slice(K, K+k0, K, K+k0))
		for i := 0; i < k0; i++ {
			B0m.Set(i, i, B0m.At(i, i)+lambda2)
		}
	}
	return w.lipschitz(k0)
}

// gradient returns the gradient of xStep's objective (without the ℓ1
// term) for the batch w.Yb, after computing its constant part, which
// depends on the batch and the running means.
func (w *work) gradient(s *state, p *params) core.GradFunc {
	K, k0 := s.K(), s.k0()
	_, b := w.Yb.Dims()
	part, sp := s.part, w.sp
	lin := reuse(&w.lin, K+k0, b)
	gemm(gblas.Trans, gblas.NoTrans, 1, &w.Db, &w.Yb, 0, lin)
	lx := lin.Slice(0, K, 0, b).(*mat.Dense)
	blas.DoubleDiagBlocks(lx.RawMatrix(), part, sp)
	lr := lin.RawMatrix()
	for c := 0; c+1 < len(sp); c++ {
		for j := sp[c]; j < sp[c+1]; j++ {
			for i := 0; i < K; i++ {
				lr.Data[i*lr.Stride+j] = p.lambda2*(w.m[i]-2*w.Mc.At(i, c)) - lr.Data[i*lr.Stride+j]
			}
		}
	}
	for i := K; i < K+k0; i++ {
		row := lr.Data[i*lr.Stride : i*lr.Stride+b]
		for j := range row {
			row[j] = -2*row[j] - p.lambda2*w.m0[i-K]
		}
	}
	T := reuse(&w.T, K, b)
	MX := reuse(&w.MX, K, b)
	return func(G, W *mat.Dense) {
		X := W.Slice(0, K, 0, b)
		GX := G.Slice(0, K, 0, b).(*mat.Dense)
		GX.Copy(lx)
		gemm(gblas.NoTrans, gblas.NoTrans, 1, &w.MA, X, 1, GX)
		if k0 == 0 {
			return
		}
		X0 := W.Slice(K, K+k0, 0, b)
		gemm(gblas.NoTrans, gblas.NoTrans, 1, w.G.Slice(0, K, K, K+k0), X0, 0, T)
		blas.DoubleDiagBlocks(T.RawMatrix(), part, sp)
		GX.Add(GX, T)
		MX.Copy(X)
		blas.DoubleDiagBlocks(MX.RawMatrix(), part, sp)
		G0 := G.Slice(K, K+k0, 0, b).(*mat.Dense)
		G0.Copy(lin.Slice(K, K+k0, 0, b))
		gemm(gblas.NoTrans, gblas.NoTrans, 1, &w.B0m, X0, 1, G0)
		gemm(gblas.NoTrans, gblas.NoTrans, 1, w.G.Slice(K, K+k0, 0, K), MX, 1, G0)
	}
}

// xStep sets w.Xb to the codes [X; X0] ((K+k0)×b) of the batch w.Yb
// (columns sorted by class, partition w.sp) minimising
//
//	Σ_i ½‖y_i − D̄x̄_i‖² + ½‖y_i − D_c x_i^c − D0 x0_i‖² + ½Σ_{j≠c}‖D_j x_i^j‖²
//	    + λ2(‖x_i − m_c‖² + mᵀx_i) + λ2/2‖x0_i − m0‖² + λ1‖x̄_i‖₁
//
// (c the class of y_i) by FISTA. The start is zero, or (Options.OwnIters)
// the result of a first FISTA run in which each sample's codes on the
// atoms of other classes are held at zero, as Algorithm 2's
// initialisation gives every sample codes on its own class's atoms only:
// from zero, the few iterations of a minibatch spread the codes over the
// classes and the class dictionaries mix. With the running means equal to
// the means of the codes, its gradient is LRSDL-X's (eqs. hbar_diff_up and
// hbar_diff_lo):
//
//	∇_X  = (M(DᵀD) + 2λ2I)X − M(Dᵀ(Y − D0X0)) + λ2(M − 2M̂)
//	∇_X0 = (2D0ᵀD0 + λ2I)X0 − 2D0ᵀV − λ2M0,  V = Y − ½D·M(X).
//
// prepare must have been called since D̄ last changed.
func (w *work) xStep(ctx context.Context, s *state, p *params, L float64) error {
	grad := w.gradient(s, p)
	K, k0 := s.K(), s.k0()
	_, b := w.Yb.Dims()
	Xb := reuse(&w.Xb, K+k0, b)
	Xb.Zero()
	if p.ownIters > 0 {
		// Start from the codes restricted to each sample's own class
		// atoms (and the shared ones): the gradient's other rows are zeroed,
		// so those codes stay zero.
		own := func(G, W *mat.Dense) {
			grad(G, W)
			gr := G.RawMatrix()
			for c := 0; c+1 < len(w.sp); c++ {
				lo, hi := s.part.Block(c)
				for i := 0; i < K; i++ {
					if i >= lo && i < hi {
						continue
					}
					row := gr.Data[i*gr.Stride:]
					for j := w.sp[c]; j < w.sp[c+1]; j++ {
						row[j] = 0
					}
				}
			}
		}
		w.fista.MaxIter, w.fista.Tol, w.fista.Restart = p.ownIters, 1e-4, true
		if _, err := w.fista.Solve(ctx, Xb, own, L, p.lambda1, nil); err != nil {
			return err
		}
	}
	w.fista.MaxIter, w.fista.Tol, w.fista.Restart = p.xIters, 1e-4, true
	_, err := w.fista.Solve(ctx, Xb, grad, L, p.lambda1, nil)
	return err
}
