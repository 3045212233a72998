package methods

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestReduceSpan(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	full := mat.NewDense(40, 12, nil)
	for i := range full.RawMatrix().Data {
		full.RawMatrix().Data[i] = rng.NormFloat64()
	}
	// Rank 3: every column a combination of the first three.
	low := mat.NewDense(40, 12, nil)
	var B mat.Dense
	B.Mul(full.Slice(0, 40, 0, 3), full.Slice(0, 3, 0, 12))
	low.Copy(&B)
	for name, Y := range map[string]*mat.Dense{"full rank": full, "rank 3": low} {
		Q, Yr := reduceSpan(Y)
		if Q == nil {
			t.Fatalf("%s: 40×12 not reduced", name)
		}
		if r, c := Q.Dims(); r != 40 || c != 12 {
			t.Fatalf("%s: Q is %d×%d, want 40×12", name, r, c)
		}
		if r, c := Yr.Dims(); r != 12 || c != 12 {
			t.Fatalf("%s: Yr is %d×%d, want 12×12", name, r, c)
		}
		var QtQ mat.Dense
		QtQ.Mul(Q.T(), Q)
		if !mat.EqualApprox(&QtQ, eye(12), 1e-12) {
			t.Errorf("%s: QᵀQ ≠ I", name)
		}
		if !mat.EqualApprox(expand(Q, Yr), Y, 1e-12) {
			t.Errorf("%s: Q·Yr ≠ Y", name)
		}
		for i := 1; i < 12; i++ {
			for j := 0; j < i; j++ {
				if Yr.At(i, j) != 0 {
					t.Fatalf("%s: Yr(%d,%d) = %v below the diagonal", name, i, j, Yr.At(i, j))
				}
			}
		}
	}
	if Q, Yr := reduceSpan(full.Slice(0, 14, 0, 12)); Q != nil || Yr != nil {
		t.Error("14×12 reduced, want nil (d ≤ 1.2·N)")
	}
	spanOff = true
	defer func() { spanOff = false }()
	if Q, _ := reduceSpan(full); Q != nil {
		t.Error("reduced with spanOff set")
	}
}

func eye(n int) *mat.Dense {
	I := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		I.Set(i, i, 1)
	}
	return I
}
