package main

import (
	"math"
	"testing"

	"github.com/lrsdl/lrsdl"
	"gonum.org/v1/gonum/mat"
)

func TestFaceLike(t *testing.T) {
	Y, labels := faceLike(5, 30, 4, 1)
	if r, c := Y.Dims(); r != 30 || c != 20 || len(labels) != 20 {
		t.Fatalf("dims %d×%d, %d labels; want 30×20, 20", r, c, len(labels))
	}
	for j := range 20 {
		if n := mat.Norm(Y.ColView(j), 2); math.Abs(n-1) > 1e-12 {
			t.Errorf("column %d has norm %v", j, n)
		}
		if labels[j] != j/4 {
			t.Errorf("label %d = %d, want %d", j, labels[j], j/4)
		}
	}
	// Same seed, same data; another seed, other data.
	Y2, _ := faceLike(5, 30, 4, 1)
	Y3, _ := faceLike(5, 30, 4, 2)
	if !mat.Equal(Y, Y2) || mat.Equal(Y, Y3) {
		t.Error("faceLike is not determined by its seed")
	}
	// Samples of one class lie closer to each other than to other classes'.
	var in, out float64
	for i := range 20 {
		for j := range 20 {
			if i != j {
				d := math.Abs(mat.Dot(Y.ColView(i), Y.ColView(j)))
				if labels[i] == labels[j] {
					in += d / 60
				} else {
					out += d / 320
				}
			}
		}
	}
	if in <= out {
		t.Errorf("mean |cos| within classes %.3f not above across classes %.3f", in, out)
	}
}

func TestPerIter(t *testing.T) {
	v := variant{Trace: []lrsdl.Progress{{Elapsed: 5e9}, {Elapsed: 7e9}, {Elapsed: 9e9}}}
	if got := v.perIter(); got != 2e9 {
		t.Errorf("perIter = %v, want 2s (initialisation excluded)", got)
	}
}
