package fisher

import (
	"github.com/lrsdl/lrsdl/core"
	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// x0step is the X0 subproblem of the X step: with X fixed, h̄ has in X0 the
// gradient
//
//	(2R + λ2I)X0 − λ2M0 − B0,   B0 = 2D0ᵀY − QᵀM(X)
//
// (the lower rows of xstep's), with Lipschitz constant λmax(2R + λ2I).
type x0step struct {
	lambda2 float64
	H, B    mat.Dense // 2R + λ2I (k0×k0), B0 (k0×N)
	lip     core.PowerIter
}

// setup computes H and B0 from G = D̄ᵀD̄, DtY = D̄ᵀY and X (K×N).
func (s *x0step) setup(G, DtY, X blas64.General, sp, ap core.Partition, lambda2 float64) {
	K, kb, N := X.Rows, G.Rows, X.Cols
	k0 := kb - K
	s.lambda2 = lambda2
	s.H.Reset()
	s.H.ReuseAs(k0, k0)
	h := s.H.RawMatrix()
	for i := 0; i < k0; i++ {
		for j := 0; j < k0; j++ {
			h.Data[i*h.Stride+j] = 2 * G.Data[(K+i)*G.Stride+K+j]
		}
		h.Data[i*h.Stride+i] += lambda2
	}
	s.B.Reset()
	s.B.ReuseAs(k0, N)
	b := s.B.RawMatrix()
	for i := 0; i < k0; i++ {
		br, yr := b.Data[i*b.Stride:i*b.Stride+N], DtY.Data[(K+i)*DtY.Stride:(K+i)*DtY.Stride+N]
		for j, v := range yr {
			br[j] = 2 * v
		}
	}
	// −QᵀM(X) = −QᵀX − Σ_c Q_cᵀX_c^c
	blas64.Gemm(gblas.Trans, gblas.NoTrans, -1, sub(G, 0, K, K, kb), X, 1, b)
	for c := 0; c < sp.Blocks(); c++ {
		lo, hi := sp.Block(c)
		a0, a1 := ap.Block(c)
		blas64.Gemm(gblas.Trans, gblas.NoTrans, -1, sub(G, a0, a1, K, kb), sub(X, a0, a1, lo, hi), 1, sub(b, 0, k0, lo, hi))
	}
}

// lipschitz returns an upper bound of λmax(2R + λ2I).
func (s *x0step) lipschitz() float64 {
	s.lip.MaxIter, s.lip.Tol = 300, 1e-10
	_, l := s.lip.MaxEig(&s.H)
	return l
}

// grad writes (2R + λ2I)W − λ2·mean(W) − B0 into G. It allocates nothing.
func (s *x0step) grad(G, W *mat.Dense) {
	g, w, b := G.RawMatrix(), W.RawMatrix(), s.B.RawMatrix()
	blas64.Gemm(gblas.NoTrans, gblas.NoTrans, 1, s.H.RawMatrix(), w, 0, g)
	n := float64(w.Cols)
	for i := 0; i < w.Rows; i++ {
		gr, br := g.Data[i*g.Stride:i*g.Stride+g.Cols], b.Data[i*b.Stride:i*b.Stride+b.Cols]
		a := s.lambda2 * floats.Sum(w.Data[i*w.Stride:i*w.Stride+w.Cols]) / n
		for j, v := range br {
			gr[j] -= v + a
		}
	}
}
