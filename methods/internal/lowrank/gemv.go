package lowrank

import (
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/lrsdl/lrsdl/internal/parallel"
)

// gemvMin is the least size m·n of a for which gemv splits the
// product between two goroutines: below it, starting one costs more than
// it saves.
const gemvMin = 1 << 15

// gemv is blas64.Gemv (y = α·op(a)·x + β·y, unit increments) with a
// large product split between the caller and one more goroutine: by rows
// of a for blas.NoTrans, by columns (the entries of y) for blas.Trans, at
// a multiple of 8 from the first, each part computed by blas64.Gemv.
// Every entry of y depends only on its row (column) of a, x, α and β, and
// gonum's kernels take rows (columns) in blocks of at most 8 from the
// first, so each gets the same operations in the same order and y is
// bit-identical to blas64.Gemv's, whatever GOMAXPROCS.
func gemv(t blas.Transpose, alpha float64, a blas64.General, x blas64.Vector, beta float64, y blas64.Vector) {
	gemvSplit(gemvMin, t, alpha, a, x, beta, y)
}

// gemvSplit is gemv splitting from size minSize on.
func gemvSplit(minSize int, t blas.Transpose, alpha float64, a blas64.General, x blas64.Vector, beta float64, y blas64.Vector) {
	n := a.Rows
	if t == blas.Trans {
		n = a.Cols
	}
	h := n / 2 &^ 7
	if a.Rows*a.Cols < minSize || h == 0 || x.Inc != 1 || y.Inc != 1 || parallel.Procs() < 2 {
		blas64.Gemv(t, alpha, a, x, beta, y)
		return
	}
	a1, a2 := a, a
	if t == blas.Trans {
		a1.Cols, a2.Cols, a2.Data = h, a.Cols-h, a.Data[h:]
	} else {
		a1.Rows, a2.Rows, a2.Data = h, a.Rows-h, a.Data[h*a.Stride:]
	}
	y1 := blas64.Vector{N: h, Inc: 1, Data: y.Data[:h]}
	y2 := blas64.Vector{N: n - h, Inc: 1, Data: y.Data[h:]}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		blas64.Gemv(t, alpha, a2, x, beta, y2)
	}()
	blas64.Gemv(t, alpha, a1, x, beta, y1)
	wg.Wait()
}
