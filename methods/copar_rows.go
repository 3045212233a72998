package methods

import (
	"context"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/lrsdl/lrsdl/blas"
)

// coparRowsTile is the number of multiply-adds of one block of rows of
// coparRowsMul.
const coparRowsTile = 1 << 26

// coparRowsMul is blas.SparseRowsMul(dst, a, b) in blocks of rows of about
// tile multiply-adds, checking ctx before each; on cancellation it returns
// ctx.Err() with dst partly set. SparseRowsMul picks its path by the
// density of a, so the product is split only when every block's density
// falls on the same side of blas.DensityCrossover() as the whole's; each
// row is then computed as by one call.
func coparRowsMul(ctx context.Context, dst, a, b blas64.General, tile int) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m, K, N := a.Rows, a.Cols, b.Cols
	if m == 0 || float64(m)*float64(K)*float64(N) <= float64(tile) {
		blas.SparseRowsMul(dst, a, b)
		return nil
	}
	step := max(1, tile/max(K*N, 1))
	cross := blas.DensityCrossover()
	sparse := float64(blas.NonZeros(a)) <= cross*float64(m)*float64(K)
	for lo := 0; lo < m; lo += step {
		hi := min(lo+step, m)
		if float64(blas.NonZeros(blas.View(a, lo, hi, 0, K))) <= cross*float64(hi-lo)*float64(K) != sparse {
			blas.SparseRowsMul(dst, a, b)
			return nil
		}
	}
	for lo := 0; lo < m; lo += step {
		if err := ctx.Err(); err != nil {
			return err
		}
		hi := min(lo+step, m)
		blas.SparseRowsMul(blas.View(dst, lo, hi, 0, N), blas.View(a, lo, hi, 0, K), b)
	}
	return nil
}
