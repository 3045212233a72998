// Package testutil holds helpers shared by the tests of several packages.
package testutil

import (
	"math/rand/v2"
	"os"
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
