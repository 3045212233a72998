// Package testutil holds helpers shared by the tests of several packages.
package testutil

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"sync/atomic"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl/blas"
	"github.com/lrsdl/lrsdl/internal/testutil/each"
)

// Backends runs f as a subtest once per BLAS implementation linked into the
// test binary (blas.Implementations, by name) and restores the current
// implementation afterwards.
func Backends(t *testing.T, f func(t *testing.T)) {
	each.Backend(t, blas.Implementations(), f)
}

// RandDense returns an r×c matrix of standard normal entries, drawn row by row.
func RandDense(rng *rand.Rand, r, c int) *mat.Dense {
	a := mat.NewDense(r, c, nil)
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			a.Set(i, j, rng.NormFloat64())
		}
	}
	return a
}

// UnitCols scales every column of a to unit Euclidean norm and returns a.
func UnitCols(a *mat.Dense) *mat.Dense {
	_, c := a.Dims()
	for j := 0; j < c; j++ {
		col := mat.Col(nil, j, a)
		floats.Scale(1/floats.Norm(col, 2), col)
		a.SetCol(j, col)
	}
	return a
}

// RandUnitCols returns UnitCols(RandDense(rng, d, k)).
func RandUnitCols(rng *rand.Rand, d, k int) *mat.Dense { return UnitCols(RandDense(rng, d, k)) }

// CentralDiff returns (f(M_ij + h) − f(M_ij − h)) / 2h, the central
// difference of f in the entry (i, j) of M, and restores M_ij.
func CentralDiff(f func() float64, M *mat.Dense, i, j int, h float64) float64 {
	x := M.At(i, j)
	M.Set(i, j, x+h)
	fp := f()
	M.Set(i, j, x-h)
	fm := f()
	M.Set(i, j, x)
	return (fp - fm) / (2 * h)
}

// Main is the TestMain of the project's test binaries: it sets up the
// binary's BLAS as its programs do (blas.Setup: OpenBLAS in the openblas
// build, with the kernels that suit the CPU), then runs the tests.
func Main(m *testing.M) {
	blas.Setup()
	os.Exit(m.Run())
}

// EqualBits reports whether a and b have the same shape and bit-identical
// elements (two nil matrices are equal).
func EqualBits(a, b *mat.Dense) bool {
	if a == nil || b == nil {
		return a == b
	}
	ra, ca := a.Dims()
	rb, cb := b.Dims()
	if ra != rb || ca != cb {
		return false
	}
	for i := range ra {
		for j := range ca {
			if math.Float64bits(a.At(i, j)) != math.Float64bits(b.At(i, j)) {
				return false
			}
		}
	}
	return true
}

// CancelAt is a context whose Err reports context.Canceled from its At-th
// call on, counting the calls in N: a cancellation at a chosen check.
type CancelAt struct {
	context.Context
	N  atomic.Int64
	At int64
}

// Err returns context.Canceled from the At-th call on, else nil.
func (c *CancelAt) Err() error {
	if c.N.Add(1) >= c.At {
		return context.Canceled
	}
	return nil
}
