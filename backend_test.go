package lrsdl

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"gonum.org/v1/gonum/blas"
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
		blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, a, b, 0, c)
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
