package stream

import (
	"archive/zip"
	"context"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sbinet/npyio"
	"gonum.org/v1/gonum/mat"
)

// readAll returns every chunk of a pass of src, concatenated, and the
// chunk names.
func readAll(t *testing.T, src Source) (*mat.Dense, []int, []string) {
	t.Helper()
	var cols [][]float64
	var labels []int
	var names []string
	for {
		c, err := src.Next(context.Background())
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := Check(c, 0); err != nil {
			t.Fatal(err)
		}
		_, n := c.Y.Dims()
		for j := 0; j < n; j++ {
			cols = append(cols, mat.Col(nil, j, c.Y))
		}
		labels = append(labels, c.Labels...)
		names = append(names, c.Name)
	}
	Y := mat.NewDense(len(cols[0]), len(cols), nil)
	for j, c := range cols {
		Y.SetCol(j, c)
	}
	return Y, labels, names
}

func writeFile(t *testing.T, path string, f func(io.Writer) error) {
	t.Helper()
	w, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f(w); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// writeNPZ writes fea (samples as rows) and, if labels is not nil, gnd.
func writeNPZ(t *testing.T, path string, Y mat.Matrix, labels []int) {
	writeFile(t, path, func(w io.Writer) error {
		z := zip.NewWriter(w)
		f, err := z.Create("fea.npy")
		if err != nil {
			return err
		}
		if err := WriteNPY(f, Y, false); err != nil {
			return err
		}
		if labels != nil {
			g, err := z.Create("gnd.npy")
			if err != nil {
				return err
			}
			l := make([]int32, len(labels))
			for i, v := range labels {
				l[i] = int32(v)
			}
			if err := npyio.Write(g, l); err != nil {
				return err
			}
		}
		return z.Close()
	})
}

// TestDirRoundTrip writes a synthetic set as float64 and float32 .npy
// pairs and an .npz, and checks that Dir reads it back in chunks of at
// most Size samples, shard by shard, over two passes.
func TestDirRoundTrip(t *testing.T) {
	dir := t.TempDir()
	src := &FaceLike{C: 5, D: 12, N: 250, Chunk: 100, Seed: 1, SampleSeed: 2}
	Y, labels, _ := readAll(t, src)
	if r, c := Y.Dims(); r != 12 || c != 250 {
		t.Fatalf("FaceLike gave %d×%d", r, c)
	}
	part := func(lo, hi int) (*mat.Dense, []int) {
		return mat.DenseCopyOf(Y.Slice(0, 12, lo, hi)), labels[lo:hi]
	}
	Y0, l0 := part(0, 100)
	Y1, l1 := part(100, 200)
	Y2, l2 := part(200, 250)
	writeFile(t, filepath.Join(dir, "X_0.npy"), func(w io.Writer) error { return WriteNPY(w, Y0, false) })
	writeFile(t, filepath.Join(dir, "y_0.npy"), func(w io.Writer) error { return WriteLabelsNPY(w, l0) })
	writeFile(t, filepath.Join(dir, "X_1.npy"), func(w io.Writer) error { return WriteNPY(w, Y1, true) })
	// Labels written by another implementation, as uint8.
	writeFile(t, filepath.Join(dir, "y_1.npy"), func(w io.Writer) error {
		u := make([]uint8, len(l1))
		for i, v := range l1 {
			u[i] = uint8(v)
		}
		return npyio.Write(w, u)
	})
	writeNPZ(t, filepath.Join(dir, "z_2.npz"), Y2, l2)
	d, err := OpenDir(dir, 64)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if d.Len() != 250 || d.Dim() != 12 || d.Shards() != 3 {
		t.Fatalf("Len %d, Dim %d, Shards %d", d.Len(), d.Dim(), d.Shards())
	}
	for pass := 0; pass < 2; pass++ {
		if err := d.Reset(); err != nil {
			t.Fatal(err)
		}
		got, gl, names := readAll(t, d)
		if !mat.EqualApprox(got, Y, 1e-6) {
			t.Errorf("pass %d: samples read back differ", pass)
		}
		if !mat.Equal(got.Slice(0, 12, 0, 100), Y0) {
			t.Errorf("pass %d: float64 shard not read exactly", pass)
		}
		if strings.Join(intsStr(gl), ",") != strings.Join(intsStr(labels), ",") {
			t.Errorf("pass %d: labels differ", pass)
		}
		want := "X_0.npy rows 1..64|X_0.npy rows 65..100|X_1.npy rows 1..64|X_1.npy rows 65..100|z_2.npz rows 1..50"
		if got := strings.Join(names, "|"); got != want {
			t.Errorf("chunks %s, want %s", got, want)
		}
	}
}

func intsStr(v []int) []string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = string(rune('0' + x))
	}
	return s
}

// TestNPYChunks reads one .npy written by npyio in chunks that do not
// divide its rows.
func TestNPYChunks(t *testing.T) {
	dir := t.TempDir()
	Y := mat.NewDense(103, 7, nil) // samples as rows, as a file holds them
	labels := make([]int64, 103)
	for i := 0; i < 103; i++ {
		labels[i] = int64(i % 4)
		for j := 0; j < 7; j++ {
			Y.Set(i, j, float64(i*10+j))
		}
	}
	writeFile(t, filepath.Join(dir, "big.npy"), func(w io.Writer) error { return npyio.Write(w, Y) })
	writeFile(t, filepath.Join(dir, "lab.npy"), func(w io.Writer) error { return npyio.Write(w, labels) })
	s, err := OpenNPY(filepath.Join(dir, "big.npy"), filepath.Join(dir, "lab.npy"), 10)
	if err != nil {
		t.Fatal(err)
	}
	got, gl, names := readAll(t, s)
	if !mat.Equal(got, Y.T()) {
		t.Errorf("samples read in chunks differ")
	}
	for i, l := range gl {
		if int64(l) != labels[i] {
			t.Fatalf("label %d = %d, want %d", i, l, labels[i])
		}
	}
	if len(names) != 11 || names[10] != "big.npy rows 101..103" {
		t.Errorf("chunks %v", names)
	}
}

// TestDirErrors checks that bad shards are errors naming them.
func TestDirErrors(t *testing.T) {
	Y := mat.NewDense(6, 10, nil)
	for i := 0; i < 6; i++ {
		for j := 0; j < 10; j++ {
			Y.Set(i, j, float64(i+j))
		}
	}
	labels := []int{0, 1, 0, 1, 0, 1, 0, 1, 0, 1}
	pair := func(t *testing.T, dir, name string, Y mat.Matrix, labels []int) {
		writeFile(t, filepath.Join(dir, "X_"+name+".npy"), func(w io.Writer) error { return WriteNPY(w, Y, false) })
		writeFile(t, filepath.Join(dir, "y_"+name+".npy"), func(w io.Writer) error { return WriteLabelsNPY(w, labels) })
	}
	cases := []struct {
		name  string
		setup func(t *testing.T, dir string)
		want  string
	}{
		{"dimension", func(t *testing.T, dir string) {
			pair(t, dir, "b", Y.Slice(0, 5, 0, 10), labels)
		}, "shard X_b.npy has dimension 5, shard X_a.npy 6"},
		{"fewer labels", func(t *testing.T, dir string) {
			pair(t, dir, "b", Y, labels[:7])
		}, "shard X_b.npy has 10 samples and 7 labels"},
		{"no labels file", func(t *testing.T, dir string) {
			writeFile(t, filepath.Join(dir, "X_b.npy"), func(w io.Writer) error { return WriteNPY(w, Y, false) })
		}, "shard X_b.npy has no labels file y_b.npy"},
		{"truncated", func(t *testing.T, dir string) {
			pair(t, dir, "b", Y, labels)
			p := filepath.Join(dir, "X_b.npy")
			fi, _ := os.Stat(p)
			if err := os.Truncate(p, fi.Size()-9); err != nil {
				t.Fatal(err)
			}
		}, "shard X_b.npy is truncated"},
		{"label-less npz", func(t *testing.T, dir string) {
			writeNPZ(t, filepath.Join(dir, "b.npz"), Y, nil)
		}, "shard b.npz has no labels (gnd)"},
		{"npz fewer labels", func(t *testing.T, dir string) {
			writeNPZ(t, filepath.Join(dir, "b.npz"), Y, labels[:3])
		}, "shard b.npz has 10 samples and 3 labels"},
		{"not npy", func(t *testing.T, dir string) {
			writeFile(t, filepath.Join(dir, "X_b.npy"), func(w io.Writer) error { _, err := w.Write([]byte("hello")); return err })
			writeFile(t, filepath.Join(dir, "y_b.npy"), func(w io.Writer) error { return WriteLabelsNPY(w, labels) })
		}, "shard X_b.npy: not a .npy file"},
	}
	for _, c := range cases {
		dir := t.TempDir()
		pair(t, dir, "a", Y, labels)
		c.setup(t, dir)
		_, err := OpenDir(dir, 4)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
	// A shard truncated after the Dir was opened: the error names it.
	dir := t.TempDir()
	pair(t, dir, "a", Y, labels)
	pair(t, dir, "b", Y, labels)
	d, err := OpenDir(dir, 4)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	p := filepath.Join(dir, "X_b.npy")
	fi, _ := os.Stat(p)
	if err := os.Truncate(p, fi.Size()-100); err != nil {
		t.Fatal(err)
	}
	for {
		_, err = d.Next(context.Background())
		if err != nil {
			break
		}
	}
	if err == io.EOF || !strings.Contains(err.Error(), "X_b.npy is truncated") {
		t.Errorf("shard truncated while open: error %v", err)
	}
}

// TestFaceLike checks that chunks depend on their index alone, that the
// samples have unit norm and that another sample seed draws other samples
// of the same classes.
func TestFaceLike(t *testing.T) {
	s := &FaceLike{C: 3, D: 20, N: 95, Chunk: 30, Seed: 5, SampleSeed: 1}
	a, la, names := readAll(t, s)
	if len(names) != 4 || len(la) != 95 {
		t.Fatalf("%d chunks, %d labels", len(names), len(la))
	}
	s.Reset()
	b, _, _ := readAll(t, s)
	if !mat.Equal(a, b) {
		t.Errorf("a pass after Reset differs")
	}
	for j := 0; j < 95; j++ {
		if n := mat.Norm(a.ColView(j), 2); n < 1-1e-12 || n > 1+1e-12 {
			t.Fatalf("sample %d has norm %g", j, n)
		}
	}
	o := &FaceLike{C: 3, D: 20, N: 95, Chunk: 30, Seed: 5, SampleSeed: 2}
	c, _, _ := readAll(t, o)
	if mat.EqualApprox(a, c, 1e-3) {
		t.Errorf("another sample seed gives the same samples")
	}
	if _, err := (&FaceLike{C: 0, D: 2, N: 3}).Next(context.Background()); err == nil {
		t.Errorf("C = 0: no error")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := o.Next(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled Next: %v", err)
	}
}

// TestNormalized checks unit-norm columns and that zero columns stay zero.
func TestNormalized(t *testing.T) {
	Y := mat.NewDense(3, 4, []float64{3, 0, 1, 2, 4, 0, 1, 2, 0, 0, 1, 2})
	s := Normalized{S: &Dense{Y: Y, Labels: []int{0, 1, 0, 1}}}
	c, err := s.Next(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{1, 0, 1, 1}
	for j, w := range want {
		if n := mat.Norm(c.Y.ColView(j), 2); math.Abs(n-w) > 1e-15 {
			t.Errorf("column %d has norm %g, want %g", j, n, w)
		}
	}
	if math.Abs(c.Y.At(0, 0)-0.6) > 1e-15 || s.Len() != 4 {
		t.Errorf("first entry %g, Len %d", c.Y.At(0, 0), s.Len())
	}
}
