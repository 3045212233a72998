package data

import (
	"bytes"
	"compress/gzip"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/james-bowman/sparse"
	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl/matfile"
	"github.com/lrsdl/lrsdl/split"
)

// labelCounts returns the number of samples of each label, in increasing
// order of label.
func labelCounts(labels []int) []int {
	_, idx := split.ByClass(labels)
	c := make([]int, len(idx))
	for i, ix := range idx {
		c[i] = len(ix)
	}
	return c
}

func checkUnitColumns(t *testing.T, m mat.Matrix) {
	t.Helper()
	r, c := m.Dims()
	for j := 0; j < c; j++ {
		var s float64
		if sp, ok := m.(*sparse.CSC); ok {
			sp.DoColNonZero(j, func(_, _ int, v float64) { s += v * v })
		} else {
			for i := 0; i < r; i++ {
				s += m.At(i, j) * m.At(i, j)
			}
		}
		if s != 0 && math.Abs(s-1) > 1e-12 {
			t.Fatalf("column %d has squared norm %v", j, s)
		}
	}
}

func TestLoadARGender(t *testing.T) {
	ds, err := Load("../testdata/argender.mat", LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ds.Name != "argender" || !slices.Equal(ds.Classes, []int{1, 2}) {
		t.Errorf("name %q classes %v", ds.Name, ds.Classes)
	}
	for _, s := range []split.Set{ds.Train, ds.Test} {
		y, ok := s.Y.(*mat.Dense)
		if !ok {
			t.Fatalf("Y is %T, want dense", s.Y)
		}
		if r, c := y.Dims(); r != 300 || c != 700 {
			t.Errorf("Y is %d×%d", r, c)
		}
		if c := labelCounts(s.Labels); !slices.Equal(c, []int{350, 350}) {
			t.Errorf("label counts %v", c)
		}
		checkUnitColumns(t, y) // the file's columns have unit norm already
	}
	if got := ds.Train.Y.At(123, 456); got != -0.011178112899865757 {
		t.Errorf("Train.Y(123, 456) = %v", got)
	}

	// The paper's protocol: 250 per class from the training half, tested
	// on the whole test half.
	test := ds.Test
	if err := ds.Split(250, 1); err != nil {
		t.Fatal(err)
	}
	if c := labelCounts(ds.Train.Labels); !slices.Equal(c, []int{250, 250}) {
		t.Errorf("split counts %v", c)
	}
	if ds.Test.Y != test.Y {
		t.Error("Split replaced the file's test set")
	}
}

func TestLoadFlower(t *testing.T) {
	ds, err := Load("../testdata/flower17-split1.mat", LoadOptions{Normalize: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.Classes) != 17 || ds.Classes[0] != 1 || ds.Classes[16] != 17 {
		t.Errorf("classes %v", ds.Classes)
	}
	for _, c := range []struct {
		s        split.Set
		n, per   int
		nnz      int
		firstRow int
	}{
		{ds.Train, 1020, 60, 80296, 373},
		{ds.Test, 340, 20, 26105, -1},
	} {
		y, ok := c.s.Y.(*sparse.CSC)
		if !ok {
			t.Fatalf("Y is %T, want *sparse.CSC", c.s.Y)
		}
		if r, n := y.Dims(); r != 10000 || n != c.n {
			t.Errorf("Y is %d×%d, want 10000×%d", r, n, c.n)
		}
		if y.NNZ() != c.nnz {
			t.Errorf("%d non-zeros, want %d", y.NNZ(), c.nnz)
		}
		for k, n := range labelCounts(c.s.Labels) {
			if n != c.per {
				t.Errorf("class %d has %d samples, want %d", k, n, c.per)
			}
		}
		checkUnitColumns(t, y)
		if c.firstRow >= 0 && y.At(c.firstRow, 0) == 0 {
			t.Errorf("Y(%d, 0) = 0", c.firstRow)
		}
	}
}

func TestLoadDigitsCSV(t *testing.T) {
	ds, err := Load("../testdata/digits8x8.csv.gz", LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ds.Name != "digits8x8" || ds.Test.Y != nil || len(ds.Classes) != 10 || ds.Classes[9] != 9 {
		t.Errorf("name %q test %v classes %v", ds.Name, ds.Test, ds.Classes)
	}
	y := ds.Train.Y
	if r, c := y.Dims(); r != 64 || c != 1797 {
		t.Fatalf("Y is %d×%d, want 64×1797", r, c)
	}
	if _, ok := y.(*mat.Dense); !ok {
		t.Errorf("Y is %T, want dense (density about 0.51)", y)
	}
	if c := labelCounts(ds.Train.Labels); !slices.Equal(c, []int{178, 182, 177, 183, 181, 182, 181, 179, 174, 180}) {
		t.Errorf("label counts %v", c)
	}
	if s := mat.Sum(y); s != 561718 {
		t.Errorf("sum %v, want 561718", s)
	}
	if err := ds.Split(100, 1); err != nil {
		t.Fatal(err)
	}
	if c := labelCounts(ds.Test.Labels); ds.Train.Len() != 1000 || len(c) != 10 || c[0] != 78 || c[8] != 74 {
		t.Errorf("after Split: %d training samples, test counts %v", ds.Train.Len(), c)
	}
	if err := ds.Split(1000, 1); err == nil || !strings.Contains(err.Error(), "digits8x8: split: class 0 has 100 samples") {
		t.Errorf("Split(1000): %v", err)
	}
	if y.At(2, 0) != 5 || y.At(3, 0) != 13 || y.At(63, 1796) != 0 || y.At(60, 1796) != 14 {
		t.Errorf("entries %v %v %v %v", y.At(2, 0), y.At(3, 0), y.At(63, 1796), y.At(60, 1796))
	}
}

func writeFile(t *testing.T, name string, content []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, content, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestReadCSV(t *testing.T) {
	ds, err := ReadCSV(strings.NewReader("a, b, label\n1, 2, 10\n# comment\n3, 4, -5\n0, 0, 10.0\n"), &LoadOptions{Normalize: true})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ds.Classes, []int{-5, 10}) || !slices.Equal(ds.Train.Labels, []int{10, -5, 10}) {
		t.Errorf("classes %v labels %v", ds.Classes, ds.Train.Labels)
	}
	want := mat.NewDense(2, 3, []float64{1 / math.Sqrt(5), 0.6, 0, 2 / math.Sqrt(5), 0.8, 0})
	if !mat.EqualApprox(ds.Train.Y, want, 1e-15) {
		t.Errorf("Y = %v", mat.Formatted(ds.Train.Y))
	}
	ds, err = ReadCSV(strings.NewReader("\uFEFF1,2,0\n3,4,1\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if ds.Train.Len() != 2 || len(ds.Notes) != 0 {
		t.Errorf("a file with a byte-order mark: %d samples, notes %q; want 2 samples", ds.Train.Len(), ds.Notes)
	}
	ds, err = ReadCSV(strings.NewReader("\uFEFFa,b,label\n3,4,1\n1,2,0\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if ds.Train.Len() != 2 || len(ds.Notes) != 1 || !strings.Contains(ds.Notes[0], "line 1 skipped as a header: a,b,label") {
		t.Errorf("a header after a byte-order mark: %d samples, notes %q", ds.Train.Len(), ds.Notes)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte("1,2,3\n"))
	zw.Close()
	if _, err := Load(writeFile(t, "x.csv.gz", gz.Bytes()), LoadOptions{}); err != nil {
		t.Errorf("gzip CSV: %v", err)
	}

	for _, c := range []struct{ in, want string }{
		{"", "no samples"},
		{"h1,h2\n", "no samples"},
		{"5\n", "line 1: 1 field"},
		{"1,2,3\n4,5\n", "line 2: 2 fields, the first line has 3"},
		{"1,2,3\n4,x,5\n", `line 2, field 2: "x" is not a finite number`},
		{"1,NaN,3\n", `"NaN" is not a finite number`},
		{"1,2,3\n4,5,1.5\n", `line 2, column 3: "1.5" is not an integer label`},
		{"1,2,\"3\n", "csv:"},
		// A typo on the first line is not a header.
		{"1.0,2.0,abc,4,1\n1,2,3,4,0\n", `line 1, field 3: "abc" is not a finite number`},
		{"1,2,3,4,one\n1,2,3,4,0\n", `line 1, column 5: "one" is not an integer label`},
		{"x,2,label\n1,2,3\n", `line 1, field 1: "x"`},
	} {
		_, err := ReadCSV(strings.NewReader(c.in), nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ReadCSV(%q): %v, want %q", c.in, err, c.want)
		}
	}
	path := writeFile(t, "bad.csv", []byte("1,2,x\n"))
	if _, err := Load(path, LoadOptions{}); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("Load: %v, want the path", err)
	}
	if _, err := Load(writeFile(t, "bad.csv.gz", []byte("plain")), LoadOptions{}); err == nil || !strings.Contains(err.Error(), "gzip") {
		t.Errorf("Load of a non-gzip .csv.gz: %v", err)
	}
	if _, err := Load("x.txt", LoadOptions{}); err == nil || !strings.Contains(err.Error(), "unknown file type") {
		t.Errorf("Load(x.txt): %v", err)
	}
}

// writeMATFile writes matrices to a MAT-file for Load tests.
func writeMATFile(t *testing.T, ms map[string]*mat.Dense) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "d.mat")
	if err := matfile.Write(path, nil, ms); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoadWholeLayout(t *testing.T) {
	// 3 features, 4 samples with labels 7, 3, 7, 5.
	cols := mat.NewDense(3, 4, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
	rows := mat.DenseCopyOf(cols.T())
	labels := mat.NewDense(1, 4, []float64{7, 3, 7, 5})
	wantLabels := []int{7, 3, 7, 5}
	tru, fls := true, false
	for _, c := range []struct {
		name string
		ms   map[string]*mat.Dense
		opts LoadOptions
	}{
		{"columns", map[string]*mat.Dense{"X": cols, "gnd": labels}, LoadOptions{}},
		{"rows", map[string]*mat.Dense{"X": rows, "gnd": labels}, LoadOptions{}},
		{"rows, label column", map[string]*mat.Dense{"X": rows, "gnd": mat.DenseCopyOf(labels.T())}, LoadOptions{}},
		{"forced rows", map[string]*mat.Dense{"X": rows, "gnd": labels}, LoadOptions{SamplesAsRows: &tru}},
		{"named", map[string]*mat.Dense{"X": cols, "gnd": labels, "other": labels, "W": rows}, LoadOptions{YVar: "X", LabelVar: "gnd"}},
		{"label named", map[string]*mat.Dense{"X": cols, "gnd": labels, "other": mat.NewDense(1, 2, []float64{1, 2})}, LoadOptions{LabelVar: "gnd"}},
		{"Y named", map[string]*mat.Dense{"X": cols, "W": mat.NewDense(2, 2, nil), "gnd": labels}, LoadOptions{YVar: "X"}},
	} {
		ds, err := Load(writeMATFile(t, c.ms), c.opts)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if ds.Test.Y != nil || !slices.Equal(ds.Classes, []int{3, 5, 7}) || !slices.Equal(ds.Train.Labels, wantLabels) {
			t.Errorf("%s: test %v classes %v labels %v", c.name, ds.Test, ds.Classes, ds.Train.Labels)
		}
		if !mat.Equal(ds.Train.Y, cols) {
			t.Errorf("%s: Y = %v", c.name, mat.Formatted(ds.Train.Y))
		}
	}

	// Square data with labels: the orientation must be given.
	sq := mat.NewDense(2, 2, []float64{1, 2, 3, 4})
	path := writeMATFile(t, map[string]*mat.Dense{"X": sq, "l": mat.NewDense(1, 2, []float64{1, 2})})
	for _, c := range []struct {
		force *bool
		want  mat.Matrix
	}{{&fls, sq}, {&tru, sq.T()}} {
		ds, err := Load(path, LoadOptions{SamplesAsRows: c.force})
		if err != nil || !mat.Equal(ds.Train.Y, c.want) {
			t.Errorf("square, force %v: %v %v", *c.force, err, ds)
		}
	}
	var oe *OptionError
	if _, err := Load(path, LoadOptions{}); !errors.As(err, &oe) || oe.Option != "SamplesAsRows" || !strings.Contains(err.Error(), "could be its rows or its columns") {
		t.Errorf("square, not forced: %v, want an OptionError for SamplesAsRows", err)
	}

	// Samples of dimension 1, in a row or a column, beside labels named
	// strongly (gnd) or weakly (y) like labels.
	for i, y := range []*mat.Dense{mat.NewDense(1, 4, []float64{1, 2, 3, 4}), mat.NewDense(4, 1, []float64{1, 2, 3, 4}), mat.NewDense(1, 4, []float64{1, 2, 3, 4})} {
		ms := map[string]*mat.Dense{"Y": y, "gnd": labels}
		if i == 2 {
			ms = map[string]*mat.Dense{"X": y, "y": labels}
		}
		ds, err := Load(writeMATFile(t, ms), LoadOptions{})
		if err != nil {
			t.Errorf("d = 1: %v", err)
			continue
		}
		if d, n := ds.Train.Y.Dims(); d != 1 || n != 4 || !slices.Equal(ds.Train.Labels, wantLabels) {
			t.Errorf("d = 1: Y is %d×%d, labels %v", d, n, ds.Train.Labels)
		}
	}

	for _, c := range []struct {
		name string
		ms   map[string]*mat.Dense
		opts LoadOptions
		want string
	}{
		{"no data", map[string]*mat.Dense{"l": labels}, LoadOptions{}, `no numeric data matrix found: "l" is a 1×4 vector`},
		{"two data", map[string]*mat.Dense{"A": cols, "B": cols, "l": labels}, LoadOptions{}, "want one data matrix with no train/test pair, found 2 (A, B) (set LoadOptions.YVar)"},
		{"no label", map[string]*mat.Dense{"X": cols, "l": mat.NewDense(1, 4, []float64{1, 2.5, 3, 4})}, LoadOptions{}, `no integer label vector with 3 or 4 entries for "X" (the file has: X, l); name one, or set NoLabels`},
		{"two labels", map[string]*mat.Dense{"X": cols, "l": labels, "m": labels}, LoadOptions{}, `several integer vectors could label "X": "l" (3 values 3..7, not consecutive from 0 or 1, each at least 1 times), "m"`},
		{"mismatch", map[string]*mat.Dense{"X": cols, "l": mat.NewDense(1, 5, nil)}, LoadOptions{YVar: "X", LabelVar: "l"}, `"X" is 3×4, but label variable "l" has 5 labels`},
		{"forced wrong", map[string]*mat.Dense{"X": cols, "l": labels}, LoadOptions{SamplesAsRows: &tru}, "with samples as rows"},
		{"non-integer labels", map[string]*mat.Dense{"X": cols, "l": mat.NewDense(1, 4, []float64{1, 2.5, 3, 4})}, LoadOptions{YVar: "X", LabelVar: "l"}, `"l": element 1 (2.5) is not an integer`},
		{"label matrix", map[string]*mat.Dense{"X": cols, "l": cols}, LoadOptions{YVar: "X", LabelVar: "l"}, `"l" is 3×4, not a vector`},
		{"missing var", map[string]*mat.Dense{"X": cols, "l": labels}, LoadOptions{YVar: "Q"}, `no variable "Q"`},
		{"both layouts", map[string]*mat.Dense{"X": cols}, LoadOptions{YVar: "X", YTrainVar: "X"}, "both layouts"},
		{"partial split", map[string]*mat.Dense{"X": cols}, LoadOptions{YTrainVar: "X"}, "want one test data matrix, found 0 () (set LoadOptions.YTestVar)"},
		{"NaN", map[string]*mat.Dense{"X": mat.NewDense(2, 3, []float64{1, 2, 3, math.NaN(), 5, 6}), "l": mat.NewDense(1, 3, []float64{1, 2, 1})}, LoadOptions{}, `"X": element (1, 0) is not finite`},
	} {
		path := writeMATFile(t, c.ms)
		_, err := Load(path, c.opts)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: %v, want %q and the path", c.name, err, c.want)
		}
	}
}

func TestLoadSplitLayout(t *testing.T) {
	yTr := mat.NewDense(2, 3, []float64{1, 0, 0, 0, 0, 2})
	yTe := mat.NewDense(2, 2, []float64{0, 5, 6, 0})
	lTr := mat.NewDense(1, 3, []float64{4, 9, 4})
	lTe := mat.NewDense(1, 2, []float64{9, 4})
	ms := map[string]*mat.Dense{"Xtrain": yTr, "Xtest": yTe, "ytrain": lTr, "ytest": lTe}
	path := writeMATFile(t, ms)
	for _, opts := range []LoadOptions{
		{SparseDensity: 0.5},
		{YTrainVar: "Xtrain", YTestVar: "Xtest", LabelTrainVar: "ytrain", LabelTestVar: "ytest", SparseDensity: 0.5},
	} {
		ds, err := Load(path, opts)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(ds.Classes, []int{4, 9}) || !slices.Equal(ds.Train.Labels, []int{4, 9, 4}) || !slices.Equal(ds.Test.Labels, []int{9, 4}) {
			t.Errorf("classes %v train %v test %v", ds.Classes, ds.Train.Labels, ds.Test.Labels)
		}
		// Density 1/3 < 0.5 is sparse; 1/2 is not.
		if _, ok := ds.Train.Y.(*sparse.CSC); !ok || !mat.Equal(ds.Train.Y, yTr) {
			t.Errorf("train Y %T %v", ds.Train.Y, ds.Train.Y)
		}
		if _, ok := ds.Test.Y.(*mat.Dense); !ok || !mat.Equal(ds.Test.Y, yTe) {
			t.Errorf("test Y %T %v", ds.Test.Y, ds.Test.Y)
		}
	}
	// Forced dense storage.
	ds, err := Load(path, LoadOptions{SparseDensity: -1})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := ds.Train.Y.(*mat.Dense); !ok || !mat.Equal(ds.Train.Y, yTr) {
		t.Errorf("SparseDensity -1: train Y %T", ds.Train.Y)
	}
	// Samples as rows, sparse: the transpose is built directly.
	tru := true
	msRows := map[string]*mat.Dense{"Xtrain": mat.DenseCopyOf(yTr.T()), "Xtest": mat.DenseCopyOf(yTe.T()), "ytrain": lTr, "ytest": lTe}
	ds, err = Load(writeMATFile(t, msRows), LoadOptions{SparseDensity: 1, SamplesAsRows: &tru})
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(ds.Train.Y, yTr) || !mat.Equal(ds.Test.Y, yTe) {
		t.Errorf("transposed sparse: %v %v", mat.Formatted(ds.Train.Y), mat.Formatted(ds.Test.Y))
	}

	for _, c := range []struct {
		name string
		ms   map[string]*mat.Dense
		want string
	}{
		{"unknown test label", map[string]*mat.Dense{"Xtrain": yTr, "Xtest": yTe, "ytrain": lTr, "ytest": mat.NewDense(1, 2, []float64{9, 8})},
			`variable "ytest": label 8 (sample 1) is not one of the 2 training classes`},
		{"feature mismatch", map[string]*mat.Dense{"Xtrain": yTr, "Xtest": mat.NewDense(3, 2, nil), "ytrain": lTr, "ytest": lTe},
			`"Xtrain" has 2 features per sample but "Xtest" has 3`},
		{"no test labels", map[string]*mat.Dense{"Xtrain": yTr, "Xtest": yTe, "ytrain": lTr},
			`no integer label vector with 2 entries for "Xtest" (the file has: Xtest, Xtrain, ytrain); name one, or set NoLabels to load the samples without labels (set LoadOptions.LabelTestVar)`},
	} {
		_, err := Load(writeMATFile(t, c.ms), LoadOptions{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

func TestNormalizeAndStore(t *testing.T) {
	d := mat.NewDense(3, 3, []float64{3, 0, 0, 4, 0, 0, 0, 0, 2})
	want := mat.NewDense(3, 3, []float64{0.6, 0, 0, 0.8, 0, 0, 0, 0, 1})
	s := toCSC(d)
	if n := NormalizeColumns(d); !mat.EqualApprox(n, want, 1e-15) {
		t.Errorf("dense: %v", mat.Formatted(n))
	}
	n := NormalizeColumns(s)
	if _, ok := n.(*sparse.CSC); !ok || !mat.EqualApprox(n, want, 1e-15) {
		t.Errorf("sparse: %T %v", n, mat.Formatted(n))
	}
	if d.At(0, 0) != 3 || s.At(0, 0) != 3 {
		t.Error("NormalizeColumns changed its input")
	}
	if n := NormalizeColumns(d.T()); !mat.EqualApprox(n, mat.NewDense(3, 3, []float64{1, 1, 0, 0, 0, 0, 0, 0, 1}), 1e-15) {
		t.Errorf("general matrix: %v", mat.Formatted(n))
	}
	// Columns whose sum of squares overflows or underflows.
	ext := mat.NewDense(2, 4, []float64{3e300, 3e-310, 0, 1e-200, 4e300, 0, 0, 1e-200})
	wantExt := mat.NewDense(2, 4, []float64{0.6, 1, 0, math.Sqrt(0.5), 0.8, 0, 0, math.Sqrt(0.5)})
	if n := NormalizeColumns(ext); !mat.EqualApprox(n, wantExt, 1e-15) {
		t.Errorf("extreme dense: %v", mat.Formatted(n))
	}
	if n := NormalizeColumns(toCSC(ext)); !mat.EqualApprox(n, wantExt, 1e-15) {
		t.Errorf("extreme sparse: %v", mat.Formatted(n))
	}
	if got := Density(d); got != 3.0/9 {
		t.Errorf("Density = %v", got)
	}
	if _, ok := Store(d, 0.5).(*sparse.CSC); !ok {
		t.Error("Store(0.5) of density 1/3 is not sparse")
	}
	if m, ok := Store(s, 0.2).(*mat.Dense); !ok || !mat.Equal(m, d) {
		t.Error("Store(0.2) of density 1/3 is not dense")
	}
	if tr := transposeCSC(s); !mat.Equal(tr, d.T()) {
		t.Errorf("transposeCSC = %v", mat.Formatted(tr))
	}
}
