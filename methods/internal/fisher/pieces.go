package fisher

import (
	"context"

	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/lrsdl/lrsdl/blas"
	"github.com/lrsdl/lrsdl/internal/parallel"
)

// pieceWork is the multiply-adds of a piece of gemmPieces and syrkPieces,
// between two checks of the context: large enough that blas.Gemm still
// shares each piece between the cores, small enough that a cancel is
// acted on long before the whole product of a large training set ends.
const pieceWork = 1 << 27

// gemmPieces sets c = aᵀ·b as blas.Gemm(Trans, NoTrans, 1, a, b, 0, c)
// does, in pieces of whole columns of c of about pieceWork multiply-adds
// each, and returns ctx's error, leaving c partly set, if it is cancelled
// before a piece. Each element is computed by one Gemm call over the whole
// inner dimension, as it is unsplit.
func gemmPieces(ctx context.Context, a, b, c blas64.General) error {
	w := columnsPerPiece(c.Rows * a.Rows)
	for j0 := 0; j0 < c.Cols; j0 += w {
		if err := ctx.Err(); err != nil {
			return err
		}
		j1 := min(j0+w, c.Cols)
		blas.Gemm(gblas.Trans, gblas.NoTrans, 1, a, sub(b, 0, b.Rows, j0, j1), 0, sub(c, 0, c.Rows, j0, j1))
	}
	return nil
}

// syrkPieces sets the upper triangle of the n×n matrix c to aᵀa (a has n
// columns) as blas64.Syrk does, and returns ctx's error, leaving c partly
// set, if it is cancelled before a piece. From pieceWork multiply-adds on
// it makes the calls blas's OpenBLAS Level3 splits Syrk into, column
// chunks of parallel.Chunks(n) each with its diagonal block by Syrk and
// the rows above by Gemm, the latter in pieces: the same bits on either
// backend.
func syrkPieces(ctx context.Context, a, c blas64.General) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	k, n := a.Rows, a.Cols
	size, count := parallel.Chunks(n)
	if n*n*k/2 < pieceWork {
		size, count = n, 1
	}
	for ch := 0; ch < count; ch++ {
		j0, j1 := ch*size, min((ch+1)*size, n)
		aj := sub(a, 0, k, j0, j1)
		cj := sub(c, j0, j1, j0, j1)
		blas64.Syrk(gblas.Trans, 1, aj, 0, blas64.Symmetric{Uplo: gblas.Upper, N: j1 - j0, Data: cj.Data, Stride: cj.Stride})
		if j0 > 0 {
			if err := gemmPieces(ctx, sub(a, 0, k, 0, j0), aj, sub(c, 0, j0, j0, j1)); err != nil {
				return err
			}
		} else if err := ctx.Err(); err != nil {
			return err
		}
	}
	return nil
}

// columnsPerPiece returns how many columns of perColumn multiply-adds make
// a piece, at least 1.
func columnsPerPiece(perColumn int) int {
	return max(1, pieceWork/max(1, perColumn))
}
