package methods

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl/internal/testutil"
)

// TestDLSIMul checks dlsiMul against Dense.Mul for every combination of
// transposes, on products small enough for one Gemm call and large enough
// to be split between the cores, into an empty and a sized dst, and that it
// panics on mismatched shapes.
func TestDLSIMul(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, sz := range [][3]int{{3, 4, 5}, {300, 40, 200}, {1, 700, 9}} {
		m, k, n := sz[0], sz[1], sz[2]
		for _, ta := range []bool{false, true} {
			for _, tb := range []bool{false, true} {
				name := fmt.Sprintf("%dx%dx%d ta=%v tb=%v", m, k, n, ta, tb)
				var a, b mat.Matrix
				if ta {
					a = testutil.RandDense(rng, k, m).T()
				} else {
					a = testutil.RandDense(rng, m, k)
				}
				if tb {
					b = testutil.RandDense(rng, n, k).T()
				} else {
					b = testutil.RandDense(rng, k, n)
				}
				var want, got mat.Dense
				want.Mul(a, b)
				dlsiMul(&got, a, b)
				if !mat.EqualApprox(&got, &want, 1e-12) {
					t.Errorf("%s: differs from Dense.Mul", name)
				}
				sized := mat.NewDense(m, n, nil)
				sized.Apply(func(int, int, float64) float64 { return 7 }, sized) // beta = 0 overwrites
				dlsiMul(sized, a, b)
				if !mat.EqualApprox(sized, &want, 1e-12) {
					t.Errorf("%s: differs from Dense.Mul into a sized dst", name)
				}
			}
		}
	}
	for _, c := range []struct {
		name string
		dst  *mat.Dense
		a, b mat.Matrix
	}{
		{"inner", &mat.Dense{}, mat.NewDense(2, 3, nil), mat.NewDense(2, 3, nil)},
		{"dst", mat.NewDense(2, 2, nil), mat.NewDense(2, 3, nil), mat.NewDense(3, 4, nil)},
		{"operand", &mat.Dense{}, mat.NewDiagDense(2, nil), mat.NewDense(2, 3, nil)},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", c.name)
				}
			}()
			dlsiMul(c.dst, c.a, c.b)
		}()
	}
}
