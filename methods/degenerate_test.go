package methods

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/methods/internal/dl"
)

// TestHugeSparsityWeightIsAnError trains every method whose training
// sparsity weight is bounded with the weight at the bound (every code
// would be 0): each must refuse with an error naming the option.
func TestHugeSparsityWeightIsAnError(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	Y := mat.NewDense(12, 24, nil)
	labels := make([]int, 24)
	for j := range 24 {
		labels[j] = j % 3
		for i := range 12 {
			Y.Set(i, j, rng.NormFloat64()+float64((i%3)*(labels[j]+1)))
		}
	}
	bound := dl.MaxColNorm(Y)
	for _, c := range []struct {
		method, option string
		factor         float64
	}{{"LRSDL", "lambda1", 1}, {"FDDL", "lambda1", 1}, {"D2L2R2", "lambda1", 1}, {"DLRD", "lambda1", 1},
		{"JDL", "lambda1", 1}, {"ODL", "lambda", 1}, {"DLSI", "lambda", 2}, {"COPAR", "lambda", 2}} {
		m, err := New(c.method)
		if err != nil {
			t.Fatal(err)
		}
		cf := m.(lrsdl.Configurable)
		for name, v := range map[string]string{"k": "4", "k0": "2", c.option: fmtNum(c.factor * bound)} {
			if err := cf.SetParam(name, v); err != nil && !strings.Contains(err.Error(), "no option") {
				t.Fatal(err)
			}
		}
		err = m.Fit(context.Background(), Y, labels)
		if err == nil || !strings.Contains(err.Error(), c.option) || !strings.Contains(err.Error(), "every code is 0") {
			t.Errorf("%s with %s at the bound: %v", c.method, c.option, err)
		}
	}
}

// TestAllZeroTrainingData checks that every method refuses all-zero
// training data.
func TestAllZeroTrainingData(t *testing.T) {
	for _, name := range Names() {
		m, _ := New(name)
		err := m.Fit(context.Background(), mat.NewDense(6, 8, nil), []int{0, 0, 0, 0, 1, 1, 1, 1})
		if err == nil || !strings.Contains(err.Error(), "all zero") {
			t.Errorf("%s on all-zero data: %v", name, err)
		}
	}
}
