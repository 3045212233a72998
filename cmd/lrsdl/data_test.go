package main

import (
	"testing"

	"github.com/james-bowman/sparse"
	"gonum.org/v1/gonum/mat"
)

// TestAllZero checks allZero on dense and sparse matrices, including a
// sparse one whose stored entries are all zero.
func TestAllZero(t *testing.T) {
	for _, c := range []struct {
		name string
		m    mat.Matrix
		want bool
	}{
		{"dense zero", mat.NewDense(2, 3, nil), true},
		{"dense", mat.NewDense(2, 2, []float64{0, 0, 0, -1e-300}), false},
		{"sparse empty", sparse.NewCSC(3, 2, []int{0, 0, 0}, nil, nil), true},
		{"sparse stored zeros", sparse.NewCSC(3, 2, []int{0, 1, 2}, []int{0, 2}, []float64{0, 0}), true},
		{"sparse", sparse.NewCSC(3, 2, []int{0, 1, 2}, []int{0, 2}, []float64{0, 2}), false},
	} {
		if got := allZero(c.m); got != c.want {
			t.Errorf("%s: allZero = %v, want %v", c.name, got, c.want)
		}
	}
}
