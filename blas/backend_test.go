package blas

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/blas/gonum"
)

// TestImplementationsAgree checks every linked BLAS against a triple-loop
// product, with blas64 switched to it, and restores the original.
func TestImplementationsAgree(t *testing.T) {
	orig := blas64.Implementation()
	defer blas64.Use(orig)
	if _, ok := Implementations()["gonum"].(gonum.Implementation); !ok {
		t.Fatal("Implementations() lacks gonum")
	}
	rnd := rand.New(rand.NewPCG(1, 2))
	const m, k, n = 70, 90, 110
	a := blas64.General{Rows: m, Cols: k, Stride: k, Data: make([]float64, m*k)}
	b := blas64.General{Rows: k, Cols: n, Stride: n, Data: make([]float64, k*n)}
	for _, s := range [][]float64{a.Data, b.Data} {
		for i := range s {
			s[i] = 2*rnd.Float64() - 1
		}
	}
	var names []string
	for name := range Implementations() {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		blas64.Use(Implementations()[name])
		c := blas64.General{Rows: m, Cols: n, Stride: n, Data: make([]float64, m*n)}
		blas64.Gemm(gblas.NoTrans, gblas.NoTrans, 1, a, b, 0, c)
		for i := 0; i < m; i++ {
			for j := 0; j < n; j++ {
				var s float64
				for l := 0; l < k; l++ {
					s += a.Data[i*k+l] * b.Data[l*n+j]
				}
				if d := math.Abs(c.Data[i*n+j] - s); d > 1e-12 {
					t.Fatalf("%s: C[%d,%d] = %v, want %v", name, i, j, c.Data[i*n+j], s)
				}
			}
		}
	}
}

// TestImplementationsIgnoreAlignment checks that every linked BLAS gives
// bit-identical Ddot, Dgemv and Dgemm results whatever the offset of the
// operands in memory, so that one seed trains one model. (OpenBLAS's own
// ddot and dgemv fail this; the openblas build takes them from gonum.)
func TestImplementationsIgnoreAlignment(t *testing.T) {
	orig := blas64.Implementation()
	defer blas64.Use(orig)
	rnd := rand.New(rand.NewPCG(3, 4))
	buf := make([]float64, 1<<14)
	for name, impl := range Implementations() {
		blas64.Use(impl)
		for trial := 0; trial < 100; trial++ {
			k, n := 1+rnd.IntN(40), 1+rnd.IntN(40)
			a := make([]float64, k*n)
			v := make([]float64, n)
			for _, s := range [][]float64{a, v} {
				for i := range s {
					s[i] = rnd.NormFloat64()
				}
			}
			var ref []float64
			for off := 0; off < 8; off++ {
				x := buf[off : off+n]
				copy(x, v)
				am := buf[64+off : 64+off+k*n]
				copy(am, a)
				y := make([]float64, k)
				A := blas64.General{Rows: k, Cols: n, Stride: n, Data: am}
				blas64.Gemv(gblas.NoTrans, 1, A, blas64.Vector{N: n, Data: x, Inc: 1}, 0, blas64.Vector{N: k, Data: y, Inc: 1})
				c := make([]float64, k)
				blas64.Gemm(gblas.NoTrans, gblas.NoTrans, 1, A, blas64.General{Rows: n, Cols: 1, Stride: 1, Data: x}, 0, blas64.General{Rows: k, Cols: 1, Stride: 1, Data: c})
				got := append(append(y, c...), blas64.Dot(blas64.Vector{N: n, Data: x, Inc: 1}, blas64.Vector{N: n, Data: x, Inc: 1}))
				if off == 0 {
					ref = got
					continue
				}
				for i := range got {
					if math.Float64bits(got[i]) != math.Float64bits(ref[i]) {
						t.Fatalf("%s: k=%d n=%d: result %d is %v at offset %d, %v at offset 0", name, k, n, i, got[i], off, ref[i])
					}
				}
			}
		}
	}
}
