package data

import (
	"math"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestSyntheticDefaults(t *testing.T) {
	ds, p, err := SyntheticSplit(SyntheticOptions{Seed: 3}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if r, c := ds.Train.Y.Dims(); r != 400 || c != 800 {
		t.Errorf("train Y %d×%d, want 400×800", r, c)
	}
	if r, c := ds.Test.Y.Dims(); r != 400 || c != 3200 {
		t.Errorf("test Y %d×%d, want 400×3200", r, c)
	}
	if c := labelCounts(ds.Test.Labels); !slices.Equal(c, []int{800, 800, 800, 800}) {
		t.Errorf("test counts %v", c)
	}
	if !slices.Equal(ds.Classes, []int{0, 1, 2, 3}) {
		t.Errorf("classes %v", ds.Classes)
	}
	if r, c := p.Class.Dims(); r != 400 || c != 16 {
		t.Errorf("class atoms %d×%d", r, c)
	}
	if r, c := p.Shared.Dims(); r != 400 || c != 2 {
		t.Errorf("shared atoms %d×%d", r, c)
	}
	for _, m := range []*mat.Dense{p.Class, p.Shared} {
		_, k := m.Dims()
		for j := 0; j < k; j++ {
			if n := mat.Norm(m.ColView(j), 2); math.Abs(n-1) > 1e-12 {
				t.Errorf("atom %d has norm %v", j, n)
			}
		}
	}
	// The first shared atom is the 6×6 square in the middle: pixel
	// (row 7..12, col 7..12), stored column-major.
	for row := 0; row < 20; row++ {
		for col := 0; col < 20; col++ {
			in := row >= 7 && row <= 12 && col >= 7 && col <= 12
			if got := p.Shared.At(col*20+row, 0) != 0; got != in {
				t.Fatalf("square pixel (%d, %d) set %v, want %v", row, col, got, in)
			}
		}
	}
	// Class 0's bars are horizontal: every atom's pixels share a few rows.
	for a := 0; a < 4; a++ {
		rows := map[int]bool{}
		for px := 0; px < 400; px++ {
			if p.Class.At(px, a) != 0 {
				rows[px%20] = true
			}
		}
		if len(rows) > 3 {
			t.Errorf("class 0 atom %d spans %d rows, want a horizontal bar", a, len(rows))
		}
	}
}

func TestSyntheticModel(t *testing.T) {
	// Without noise, every sample is an exact non-negative combination of
	// its class's atoms (weights 0 or in [0.3, 1], at least one non-zero)
	// and the shared atoms (weights in [0.5, 1.5]).
	opts := SyntheticOptions{Classes: 3, PerClass: 20, Size: 12, ClassAtoms: 3, SharedAtoms: 2, Noise: -1, Seed: 9}
	ds, p, err := Synthetic(opts)
	if err != nil {
		t.Fatal(err)
	}
	if ds.Test.Y != nil || len(ds.Train.Labels) != 60 {
		t.Fatalf("test %v, %d samples", ds.Test, len(ds.Train.Labels))
	}
	for c := 0; c < 3; c++ {
		var basis mat.Dense
		basis.Augment(p.ClassBlock(c), p.Shared)
		for j := c * 20; j < (c+1)*20; j++ {
			if ds.Train.Labels[j] != c {
				t.Fatalf("sample %d has label %d, want %d", j, ds.Train.Labels[j], c)
			}
			y := mat.VecDenseCopyOf(ds.Train.Y.(*mat.Dense).ColView(j))
			var w, r mat.VecDense
			if err := w.SolveVec(&basis, y); err != nil {
				t.Fatal(err)
			}
			r.MulVec(&basis, &w)
			r.SubVec(y, &r)
			if mat.Norm(&r, 2) > 1e-9 {
				t.Fatalf("sample %d is not in the span of its class and shared atoms", j)
			}
			used := 0
			for a := 0; a < 3; a++ {
				x := w.AtVec(a)
				if math.Abs(x) > 1e-9 {
					used++
					if x < 0.3-1e-9 || x > 1+1e-9 {
						t.Errorf("sample %d: class weight %v", j, x)
					}
				}
			}
			if used == 0 {
				t.Errorf("sample %d uses no class atom", j)
			}
			for k := 3; k < 5; k++ {
				if x := w.AtVec(k); x < 0.5-1e-9 || x > 1.5+1e-9 {
					t.Errorf("sample %d: shared weight %v", j, x)
				}
			}
		}
	}
	again, _, _ := Synthetic(opts)
	if !mat.Equal(ds.Train.Y, again.Train.Y) {
		t.Error("same options, different data")
	}
	opts.Seed++
	other, _, _ := Synthetic(opts)
	if mat.Equal(ds.Train.Y, other.Train.Y) {
		t.Error("different seeds, same data")
	}
	opts.SharedAtoms = -1
	if _, p, err := Synthetic(opts); err != nil || p.Shared != nil {
		t.Errorf("no shared atoms: %v %v", p.Shared, err)
	}
}

// TestSyntheticDifficulty checks that the default data can be classified
// with the true patterns but not perfectly by the nearest class mean.
func TestSyntheticDifficulty(t *testing.T) {
	ds, p, err := SyntheticSplit(SyntheticOptions{PerClass: 300, Seed: 5}, 0)
	if err != nil {
		t.Fatal(err)
	}
	d, _ := ds.Train.Y.Dims()
	means := mat.NewDense(d, 4, nil)
	for j, l := range ds.Train.Labels {
		for i := 0; i < d; i++ {
			means.Set(i, l, means.At(i, l)+ds.Train.Y.At(i, j)/200)
		}
	}
	bases := make([]*mat.Dense, 4)
	for c := range bases {
		bases[c] = &mat.Dense{}
		bases[c].Augment(p.ClassBlock(c), p.Shared)
	}
	test := ds.Test.Y.(*mat.Dense)
	_, n := test.Dims()
	var meanOK, trueOK int
	for j := 0; j < n; j++ {
		y := test.ColView(j)
		bestMean, bestTrue := math.Inf(1), math.Inf(1)
		var cMean, cTrue int
		for c := 0; c < 4; c++ {
			var r, w mat.VecDense
			r.SubVec(y, means.ColView(c))
			if e := mat.Norm(&r, 2); e < bestMean {
				bestMean, cMean = e, c
			}
			w.SolveVec(bases[c], y)
			r.MulVec(bases[c], &w)
			r.SubVec(y, &r)
			if e := mat.Norm(&r, 2); e < bestTrue {
				bestTrue, cTrue = e, c
			}
		}
		if cMean == ds.Test.Labels[j] {
			meanOK++
		}
		if cTrue == ds.Test.Labels[j] {
			trueOK++
		}
	}
	meanAcc, trueAcc := float64(meanOK)/float64(n), float64(trueOK)/float64(n)
	t.Logf("accuracy: nearest mean %.3f, true patterns %.3f", meanAcc, trueAcc)
	if trueAcc < 0.97 || meanAcc > 0.96 || meanAcc < 0.5 {
		t.Errorf("accuracy: nearest mean %.3f, true patterns %.3f", meanAcc, trueAcc)
	}
}

func TestSyntheticErrors(t *testing.T) {
	for _, c := range []struct {
		opts SyntheticOptions
		want string
	}{
		{SyntheticOptions{Classes: 1}, "1 classes, want at least 2"},
		{SyntheticOptions{PerClass: -1}, "-1 samples per class"},
		{SyntheticOptions{Size: 5}, "image size 5"},
		{SyntheticOptions{ClassAtoms: -2}, "-2 atoms per class"},
		{SyntheticOptions{SharedAtoms: 5}, "5 shared atoms do not fit in 20×20 images (at most 4)"},
		{SyntheticOptions{Noise: math.NaN()}, "noise NaN is not finite"},
		{SyntheticOptions{Classes: 1000, PerClass: 1000, Size: 100}, "too many"},
		{SyntheticOptions{ClassAtoms: 1 << 40}, "too many"},
	} {
		if _, _, err := Synthetic(c.opts); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.opts, err, c.want)
		}
	}
	if _, _, err := SyntheticSplit(SyntheticOptions{PerClass: 10}, 10); err == nil || !strings.Contains(err.Error(), "leave none") {
		t.Errorf("SyntheticSplit: %v", err)
	}
	if _, _, err := SyntheticSplit(SyntheticOptions{PerClass: 10, SharedAtoms: 4}, 3); err != nil {
		t.Errorf("4 shared atoms: %v", err)
	}
}
