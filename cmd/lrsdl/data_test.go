package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/james-bowman/sparse"
	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl/matfile"
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

// Files that once trained on less than they hold, or on nothing: a byte-
// order mark (the first line was dropped as a header), values near the
// largest float64 (normalised to zero), samples of dimension 1 (not
// found).
func TestTrainHonestInputs(t *testing.T) {
	dir := t.TempDir()
	var bom, huge strings.Builder
	bom.WriteString("\uFEFF")
	for j := range 20 {
		fmt.Fprintf(&bom, "%d,%d,%d\n", 1+j%2, 2-j%2, j%2)
		fmt.Fprintf(&huge, "%g,%g,%d\n", float64(1+j%2)*1e300, float64(2-j%2)*1e300, j%2)
	}
	one := filepath.Join(dir, "one.mat")
	y := mat.NewDense(1, 20, nil)
	l := mat.NewDense(1, 20, nil)
	for j := range 20 {
		y.Set(0, j, float64(j%2)+0.1*float64(j))
		l.Set(0, j, float64(j%2))
	}
	if err := matfile.Write(one, []string{"Y", "label"}, map[string]*mat.Dense{"Y": y, "label": l}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, content, want string }{
		{"bom.csv", bom.String(), "on 20 samples of dimension 2"},
		{"huge.csv", huge.String(), "on 20 samples of dimension 2"},
		{"one.mat", "", "on 20 samples of dimension 1"},
	} {
		p := filepath.Join(dir, c.name)
		if c.content != "" {
			if err := os.WriteFile(p, []byte(c.content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		code, o, e := runCmd(t, "train", "-q", "-data", p, "-method", "FDDL", "-iters", "2", "-o", filepath.Join(dir, "m"))
		if code != 0 || !strings.Contains(o, c.want) {
			t.Errorf("%s: exit %d, %q %q; want %q", c.name, code, o, e, c.want)
		}
	}
}
