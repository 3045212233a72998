package dl

import (
	"context"

	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl/blas"
)

// mulTile is the number of multiply-adds of one panel of MulDenseContext.
const mulTile = 1 << 26

// mulTileKey is the context key under which tests give MulDenseContext a
// smaller panel.
type mulTileKey struct{}

// MulDenseContext is MulDense checking ctx before the product and, when
// the product is larger than one panel of 2^26 multiply-adds, between
// panels of columns of dst (or of rows when dst is taller than wide), each
// one blas.Gemm over the whole inner dimension. On cancellation it
// returns ctx.Err() with dst partly set.
func MulDenseContext(ctx context.Context, dst *mat.Dense, a, b mat.Matrix) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	ta, ra := rawOf(a)
	tb, rb := rawOf(b)
	m, k := ra.Rows, ra.Cols
	if ta == gblas.Trans {
		m, k = k, m
	}
	n := rb.Cols
	if tb == gblas.Trans {
		n = rb.Rows
	}
	tile := mulTile
	if w, ok := ctx.Value(mulTileKey{}).(int); ok && w > 0 {
		tile = w
	}
	thin := ta == gblas.NoTrans && tb == gblas.NoTrans && n <= thinMaxCols && m*k >= thinMinElems
	if thin || float64(m)*float64(n)*float64(k) <= float64(tile) {
		MulDense(dst, a, b)
		return nil
	}
	if dst.IsEmpty() {
		dst.ReuseAs(m, n)
	} else if r, c := dst.Dims(); r != m || c != n {
		panic(mat.ErrShape)
	}
	c := dst.RawMatrix()
	rows := m > n
	side, other := n, m
	if rows {
		side, other = m, n
	}
	step := max(1, tile/max(other*k, 1))
	for lo := 0; lo < side; lo += step {
		if err := ctx.Err(); err != nil {
			return err
		}
		hi := min(lo+step, side)
		av, bv, cv := ra, rb, c
		switch {
		case rows && ta == gblas.Trans:
			av, cv = blas.View(ra, 0, k, lo, hi), blas.View(c, lo, hi, 0, n)
		case rows:
			av, cv = blas.View(ra, lo, hi, 0, k), blas.View(c, lo, hi, 0, n)
		case tb == gblas.Trans:
			bv, cv = blas.View(rb, lo, hi, 0, k), blas.View(c, 0, m, lo, hi)
		default:
			bv, cv = blas.View(rb, 0, k, lo, hi), blas.View(c, 0, m, lo, hi)
		}
		blas.Gemm(ta, tb, 1, av, bv, 0, cv)
	}
	return nil
}

// WithMulTile returns ctx carrying a MulDenseContext panel of w
// multiply-adds, for tests that cancel between panels of small products.
func WithMulTile(ctx context.Context, w int) context.Context {
	return context.WithValue(ctx, mulTileKey{}, w)
}
