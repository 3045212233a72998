package report

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot"

	"github.com/lrsdl/lrsdl/core"
)

func TestAtomGrid(t *testing.T) {
	// Two classes of 2 and 1 atoms of 2×3 images, one shared atom.
	h, w := 2, 3
	D := mat.NewDense(6, 3, nil)
	for i := range 6 {
		D.Set(i, 0, float64(i))  // ramp in column-major order
		D.Set(i, 1, -float64(i)) // reversed ramp
		D.Set(i, 2, 7)           // constant
	}
	D0 := mat.NewDense(6, 1, []float64{0, 0, 0, 0, 0, 1})
	img, err := AtomGrid(D, core.NewPartition(2, 1), D0, h, w)
	if err != nil {
		t.Fatal(err)
	}
	// 2 columns of tiles, rows: class 0, class 1, blank, shared.
	if b := img.Bounds(); b.Dx() != 2*(w+1)+1 || b.Dy() != 4*(h+1)+1 {
		t.Fatalf("size %v", b)
	}
	for c := range w {
		for r := range h {
			i := c*h + r
			want := uint8(255*float64(i)/5 + 0.5)
			if g := img.GrayAt(1+c, 1+r).Y; g != want {
				t.Errorf("atom 0 pixel (%d,%d) = %d, want %d", r, c, g, want)
			}
			if g := img.GrayAt(1+(w+1)+c, 1+r).Y; g != 255-want {
				t.Errorf("atom 1 pixel (%d,%d) = %d, want %d", r, c, g, 255-want)
			}
			if g := img.GrayAt(1+c, 1+(h+1)+r).Y; g != 128 {
				t.Errorf("constant atom pixel = %d, want 128", g)
			}
			want0 := uint8(0)
			if i == 5 {
				want0 = 255
			}
			if g := img.GrayAt(1+c, 1+3*(h+1)+r).Y; g != want0 {
				t.Errorf("shared atom pixel (%d,%d) = %d, want %d", r, c, g, want0)
			}
		}
	}
	if _, err := AtomGrid(D, core.NewPartition(2, 1), nil, 3, 3); err == nil || !strings.Contains(err.Error(), "3×3") {
		t.Errorf("wrong image size: %v", err)
	}
	if _, err := AtomGrid(D, core.NewPartition(2, 2), nil, h, w); err == nil {
		t.Error("no error for a partition of the wrong size")
	}
}

func TestSavePNG(t *testing.T) {
	D := mat.NewDense(4, 2, []float64{1, 2, 3, 4, 5, 6, 7, 8})
	img, err := AtomGrid(D, core.NewPartition(1, 1), nil, 2, 2)
	if err != nil {
		t.Fatal(err)
	}
	lp, err := Lines("cost", "time (s)", "cost", Series{Name: "O", X: []float64{0, 1, 2}, Y: []float64{3, 2, 1}},
		Series{Name: "E", X: []float64{0, 0.5}, Y: []float64{3, 1}, Err: []float64{0.1, 0.2}})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "f.png")
	if err := SavePNG(path, [][]*plot.Plot{{ImagePlot("atoms", img), lp}}, 320, 200); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if b := got.Bounds(); b.Dx() != 320 || b.Dy() != 200 {
		t.Errorf("PNG is %v, want 320×200", b)
	}
	if _, err := Lines("", "", "", Series{X: []float64{1}, Y: nil}); err == nil {
		t.Error("no error for mismatched series")
	}
	if _, err := Lines("", "", "", Series{X: []float64{1}, Y: []float64{1}, Err: []float64{}}); err == nil {
		t.Error("no error for mismatched error bars")
	}
}

// TestLinesErrorBars checks that error bars change the picture.
func TestLinesErrorBars(t *testing.T) {
	draw := func(err []float64) []uint8 {
		p, e := Lines("", "x", "y", Series{Name: "a", X: []float64{0, 1, 2}, Y: []float64{1, 2, 1}, Err: err})
		if e != nil {
			t.Fatal(e)
		}
		p.Y.Min, p.Y.Max = 0, 3
		img, e := Render([][]*plot.Plot{{p}}, 200, 150)
		if e != nil {
			t.Fatal(e)
		}
		return img.(*image.RGBA).Pix
	}
	if bytes.Equal(draw(nil), draw([]float64{0.5, 0.5, 0.5})) {
		t.Error("error bars are not drawn")
	}
}

func TestDistinctTicks(t *testing.T) {
	for _, r := range [][2]float64{{12.878, 12.9}, {0, 100}, {86, 94}, {1e-4, 3e-4}} {
		ts := distinctTicks{plot.DefaultTicks{}}.Ticks(r[0], r[1])
		seen := map[string]bool{}
		n := 0
		for _, tk := range ts {
			if tk.Label == "" {
				continue
			}
			n++
			if seen[tk.Label] {
				t.Errorf("range %v: label %q repeats in %v", r, tk.Label, ts)
			}
			seen[tk.Label] = true
		}
		if n < 2 {
			t.Errorf("range %v: %d labelled ticks", r, n)
		}
	}
}
