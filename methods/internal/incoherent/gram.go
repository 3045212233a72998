package incoherent

import (
	"sync"

	"github.com/lrsdl/lrsdl/core"
	"github.com/lrsdl/lrsdl/internal/parallel"
	"github.com/lrsdl/lrsdl/methods/internal/dl"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// Gram keeps G = DᵀD for a dictionary D whose blocks are updated one
// at a time, so that the Gram matrix AᵀA of the atoms outside a block is
// gathered from G (r² copies) instead of formed (d·r²): after block b
// changes, UpdateGram recomputes its rows and columns (d·K·|b|). It also
// holds the workspaces UpdateGram reuses from block to block.
type Gram struct {
	G    mat.Dense
	D    *mat.Dense // the dictionary of the last Init
	row  mat.Dense
	work workspace
}

// workspace holds the workspaces of UpdateGram: ADMM's, the
// factorisation of its Z step, the copy of D, the Z step's products Aᵀv and
// S⁻¹Aᵀv, and the storage of the other atoms A (OtherAtomsTo).
type workspace struct {
	admm   core.ADMMDictWorkspace
	fac    woodburyFactor
	d0     mat.Dense
	atv, w mat.Dense
	a      []float64
}

// woodburyFactor factorises S = c·I + AᵀA, the r×r matrix of E-DLSI-D's Z
// step for r < d, on its own goroutine: start begins it, wg.Wait waits for
// it. Then ok reports success, u holds the Cholesky factor U (S = UᵀU)
// and sinv holds S⁻¹ if it was asked for, else is empty. The goroutine
// performs exactly the operations the caller would, so the result does not
// depend on when it runs.
type woodburyFactor struct {
	wg   sync.WaitGroup
	m    mat.SymDense
	sinv mat.Dense
	u    blas64.Triangular
	ok   bool
}

// start factorises S for A = OtherAtoms(D, part, b) with r columns, its
// Gram matrix AᵀA taken from g, or formed from A if g is nil, and forms
// S⁻¹ if inverse holds. A, g.G and f must not change until wg.Wait returns.
func (f *woodburyFactor) start(g *Gram, A *mat.Dense, part core.Partition, b, r int, c float64, inverse bool) {
	f.ok = false
	f.sinv.Reset()
	f.wg.Add(1)
	// r³/3 for the Cholesky factor and as much for the inverse, and r²·d/2
	// to form AᵀA from A: below parallel.MinWork a goroutine costs more
	// than it overlaps (waking a second core takes tens of µs).
	work := r * r * r
	if g == nil {
		d, _ := A.Dims()
		work += r * r * d / 2
	}
	if work < parallel.MinWork {
		f.factor(g, A, part, b, r, c, inverse)
		return
	}
	go f.factor(g, A, part, b, r, c, inverse)
}

// factor is start's work, run on its own goroutine or the caller's.
func (f *woodburyFactor) factor(g *Gram, A *mat.Dense, part core.Partition, b, r int, c float64, inverse bool) {
	defer f.wg.Done()
	M := &f.m
	M.Reset()
	M.ReuseAsSym(r)
	if g != nil {
		g.othersTo(M, part, b)
	} else {
		M.SymOuterK(1, A.T())
	}
	mr := M.RawSymmetric()
	for i := 0; i < r; i++ {
		mr.Data[i*mr.Stride+i] += c
	}
	f.u, f.ok = lapack64.Potrf(mr)
	if !f.ok || !inverse {
		return
	}
	var t blas64.Symmetric
	if t, f.ok = lapack64.Potri(f.u); !f.ok {
		return
	}
	f.sinv.ReuseAs(r, r)
	sr := f.sinv.RawMatrix()
	for i := 0; i < r; i++ {
		for j := i; j < r; j++ {
			x := t.Data[i*t.Stride+j]
			sr.Data[i*sr.Stride+j] = x
			sr.Data[j*sr.Stride+i] = x
		}
	}
}

// init sets G = DᵀD.
func (g *Gram) Init(D *mat.Dense) {
	g.D = D
	g.G.Reset()
	dl.MulDense(&g.G, D.T(), D)
}

// others returns AᵀA for A = OtherAtoms(D, part, b), from the upper
// triangle of G.
func (g *Gram) others(part core.Partition, b int) *mat.SymDense {
	K, _ := g.G.Dims()
	lo, hi := part.Block(b)
	S := mat.NewSymDense(K-(hi-lo), nil)
	g.othersTo(S, part, b)
	return S
}

// othersTo sets the upper triangle of S (r×r, r the atoms outside block b)
// to that of AᵀA, as others.
func (g *Gram) othersTo(S *mat.SymDense, part core.Partition, b int) {
	lo, hi := part.Block(b)
	r := S.SymmetricDim()
	sr := S.RawSymmetric()
	gr := g.G.RawMatrix()
	for i := 0; i < r; i++ {
		gi := i
		if i >= lo {
			gi += hi - lo
		}
		row := gr.Data[gi*gr.Stride:]
		dst := sr.Data[i*sr.Stride:]
		for j := i; j < r; j++ {
			gj := j
			if j >= lo {
				gj += hi - lo
			}
			dst[j] = row[gj]
		}
	}
}

// OffBlockSq returns ‖AᵀD_b‖²_F for D_b block b of D and A the atoms
// outside it, the sum of squares of rows lo..hi of G outside columns lo..hi.
func (g *Gram) OffBlockSq(part core.Partition, b int) float64 {
	lo, hi := part.Block(b)
	gr := g.G.RawMatrix()
	var s float64
	for i := lo; i < hi; i++ {
		row := gr.Data[i*gr.Stride : i*gr.Stride+gr.Cols]
		s += floats.Dot(row[:lo], row[:lo]) + floats.Dot(row[hi:], row[hi:])
	}
	return s
}

// refresh recomputes rows and columns lo..hi of G after block b of D
// changed.
func (g *Gram) refresh(D *mat.Dense, part core.Partition, b int) {
	d, K := D.Dims()
	lo, hi := part.Block(b)
	if hi == lo {
		return
	}
	g.row.Reset()
	dl.MulDense(&g.row, D.Slice(0, d, lo, hi).T(), D)
	for i := lo; i < hi; i++ {
		for j := 0; j < K; j++ {
			v := g.row.At(i-lo, j)
			g.G.Set(i, j, v)
			g.G.Set(j, i, v)
		}
	}
}

// OtherAtoms returns the d×(K−|block b|) matrix of the columns of D outside
// block b of part.
func OtherAtoms(D *mat.Dense, part core.Partition, b int) *mat.Dense {
	return OtherAtomsTo(nil, D, part, b)
}

// OtherAtomsTo is OtherAtoms stored in *buf, grown if too short, when buf
// is not nil.
func OtherAtomsTo(buf *[]float64, D *mat.Dense, part core.Partition, b int) *mat.Dense {
	d, K := D.Dims()
	lo, hi := part.Block(b)
	r := K - (hi - lo)
	var data []float64
	if buf != nil {
		if cap(*buf) < d*r {
			*buf = make([]float64, d*r)
		}
		data = (*buf)[:d*r]
	} else {
		data = make([]float64, d*r)
	}
	dr := D.RawMatrix()
	for i := 0; i < d; i++ {
		row := dr.Data[i*dr.Stride : i*dr.Stride+K]
		copy(data[i*r:i*r+lo], row[:lo])
		copy(data[i*r+lo:(i+1)*r], row[hi:])
	}
	return mat.NewDense(d, r, data)
}

// OtherAtoms returns the atoms of D outside block b of part, in storage
// g reuses (OtherAtomsTo).
func (g *Gram) OtherAtoms(D *mat.Dense, part core.Partition, b int) *mat.Dense {
	return OtherAtomsTo(&g.work.a, D, part, b)
}
