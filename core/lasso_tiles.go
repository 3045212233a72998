package core

import (
	"context"
	"math"

	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl/blas"
)

// tileWork is the number of multiply-adds of one tile of the products that
// check their context between tiles (gemmTiles).
const tileWork = 1 << 26

// tileWorkKey is the context key under which the package's tests give a
// smaller tile (tileWorkOf).
type tileWorkKey struct{}

// tileWorkOf returns the tile size for ctx: tileWork unless ctx carries
// another under tileWorkKey.
func tileWorkOf(ctx context.Context) int {
	if w, ok := ctx.Value(tileWorkKey{}).(int); ok && w > 0 {
		return w
	}
	return tileWork
}

// gemmTiles sets c = alpha·op(a)·op(b) + beta·c (op(x) = xᵀ when its flag
// is set) by one blas64.Gemm per tile of c, each of at most tileWorkOf(ctx)
// multiply-adds, checking ctx before every tile; when ctx is cancelled it
// returns ctx.Err() with c partly updated. Every entry is computed by one
// Gemm over the whole inner dimension. With upper set, tiles below the
// diagonal of a square c are skipped and c's lower triangle is then copied
// from its upper one (symmetric products).
func gemmTiles(ctx context.Context, ta, tb bool, alpha float64, a, b blas64.General, beta float64, c blas64.General, upper bool) error {
	return gemmTilesPre(ctx, ta, tb, alpha, a, b, beta, c, upper, nil)
}

// gemmTilesPre is gemmTiles calling pre (when not nil) on each tile of c
// just before its Gemm.
func gemmTilesPre(ctx context.Context, ta, tb bool, alpha float64, a, b blas64.General, beta float64, c blas64.General, upper bool, pre func(t blas64.General, r0, c0 int)) error {
	m, n := c.Rows, c.Cols
	p := a.Cols
	if ta {
		p = a.Rows
	}
	if m == 0 || n == 0 {
		return ctx.Err()
	}
	tr, tc := tileSides(tileWorkOf(ctx), m, n, p)
	opA, opB := gblas.NoTrans, gblas.NoTrans
	if ta {
		opA = gblas.Trans
	}
	if tb {
		opB = gblas.Trans
	}
	for r0 := 0; r0 < m; r0 += tr {
		r1 := min(r0+tr, m)
		for c0 := 0; c0 < n; c0 += tc {
			c1 := min(c0+tc, n)
			if upper && r0 >= c1 {
				continue
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			var av, bv blas64.General
			if ta {
				av = blas.View(a, 0, p, r0, r1)
			} else {
				av = blas.View(a, r0, r1, 0, p)
			}
			if tb {
				bv = blas.View(b, c0, c1, 0, p)
			} else {
				bv = blas.View(b, 0, p, c0, c1)
			}
			ct := blas.View(c, r0, r1, c0, c1)
			if pre != nil {
				pre(ct, r0, c0)
			}
			blas64.Gemm(opA, opB, alpha, av, bv, beta, ct)
		}
	}
	if upper {
		for i := 1; i < m; i++ {
			for j := 0; j < i; j++ {
				c.Data[i*c.Stride+j] = c.Data[j*c.Stride+i]
			}
		}
	}
	return nil
}

// tileSides returns the rows and columns of gemmTiles' tiles of an m×n
// product over an inner dimension p, at most work multiply-adds a tile:
// all of it within work, otherwise near-square tiles (longer along a
// short side's complement).
func tileSides(work, m, n, p int) (tr, tc int) {
	if float64(m)*float64(n)*float64(p) <= float64(work) {
		return m, n
	}
	s := max(1, int(math.Sqrt(float64(work)/float64(max(p, 1)))))
	tr = min(m, s)
	tc = min(n, max(s, work/max(tr*p, 1)))
	tr = min(m, max(tr, work/max(tc*p, 1)))
	return tr, tc
}

// tiled reports whether gemmTiles splits an m×n product over p under ctx.
func tiled(ctx context.Context, m, n, p int) bool {
	return float64(m)*float64(n)*float64(p) > float64(tileWorkOf(ctx))
}

// gramContext sets G (k×k) = DᵀD, D d×k, checking ctx between tiles when
// the product is larger than one (see gemmTiles).
func gramContext(ctx context.Context, G, D *mat.Dense) error {
	d, k := D.Dims()
	if !tiled(ctx, k, k, d) {
		G.Mul(D.T(), D)
		return nil
	}
	return gemmTiles(ctx, true, false, 1, D.RawMatrix(), D.RawMatrix(), 0, G.RawMatrix(), true)
}

// mulTransContext is MulTrans checking ctx between the tiles of a large
// dense product.
func mulTransContext(ctx context.Context, B, D *mat.Dense, Y mat.Matrix) error {
	d, k := D.Dims()
	_, n := Y.Dims()
	y, ok := Y.(*mat.Dense)
	if !ok || !tiled(ctx, k, n, d) {
		MulTrans(B, D, Y)
		return nil
	}
	return gemmTiles(ctx, true, false, 1, D.RawMatrix(), y.RawMatrix(), 0, B.RawMatrix(), false)
}

// mulBTContext is MulBT checking ctx between the tiles of a large dense
// product.
func mulBTContext(ctx context.Context, E *mat.Dense, Y mat.Matrix, X *mat.Dense) error {
	d, n := Y.Dims()
	k, _ := X.Dims()
	y, ok := Y.(*mat.Dense)
	if !ok || !tiled(ctx, d, k, n) {
		MulBT(E, Y, X)
		return nil
	}
	return gemmTiles(ctx, false, true, 1, y.RawMatrix(), X.RawMatrix(), 0, E.RawMatrix(), false)
}

// outerContext sets F (k×k) = XXᵀ, X k×n, checking ctx between tiles when
// the product is larger than one.
func outerContext(ctx context.Context, F, X *mat.Dense) error {
	k, n := X.Dims()
	if !tiled(ctx, k, k, n) {
		F.Mul(X, X.T())
		return nil
	}
	return gemmTiles(ctx, false, true, 1, X.RawMatrix(), X.RawMatrix(), 0, F.RawMatrix(), true)
}

// lassoGradContext is lassoGrad by gemmTiles, copying each tile of B just
// before its product: on cancellation g is left partly computed, for
// FISTA's next check of ctx to stop on.
func lassoGradContext(ctx context.Context, g, G, B, W *mat.Dense) {
	k, n := W.Dims()
	if !tiled(ctx, k, n, k) {
		lassoGrad(g, G, B, W)
		return
	}
	b := B.RawMatrix()
	copyB := func(t blas64.General, r0, c0 int) {
		for i := 0; i < t.Rows; i++ {
			copy(t.Data[i*t.Stride:i*t.Stride+t.Cols], b.Data[(r0+i)*b.Stride+c0:])
		}
	}
	_ = gemmTilesPre(ctx, false, false, 1, G.RawMatrix(), W.RawMatrix(), -1, g.RawMatrix(), false, copyB)
}
