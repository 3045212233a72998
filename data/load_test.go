package data

import (
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sbinet/npyio"
	"github.com/sbinet/npyio/npz"
	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl/matfile"
)

func TestSide(t *testing.T) {
	for name, want := range map[string]int{
		"Y_train": trainSide, "X_test": testSide, "tr_dat": trainSide, "tt_dat": testSide,
		"trls": trainSide, "ttls": testSide, "label_train": trainSide, "TestLabels": testSide,
		"te_x": testSide, "fea": noSide, "gnd": noSide, "tree": noSide, "trial": noSide, "Y": noSide,
	} {
		if got := side(name); got != want {
			t.Errorf("side(%q) = %d, want %d", name, got, want)
		}
	}
}

func TestClassIDs(t *testing.T) {
	for _, c := range []struct {
		labels []int
		want   bool
	}{
		{[]int{1, 2, 2, 1, 3, 3}, true},
		{[]int{0, 1, 0, 1}, true},
		{[]int{-1, 1, 1, -1}, true},
		{[]int{1, 2, 3}, false},    // each once
		{[]int{0, 5, 0, 5}, false}, // not consecutive
		{[]int{2, 3, 2, 3}, false}, // not from 0 or 1
		{[]int{1, 2, 2, 1, 4, 4}, false},
	} {
		if got, _ := classIDs(c.labels); got != c.want {
			t.Errorf("classIDs(%v) = %v, want %v", c.labels, got, c.want)
		}
	}
}

// TestLoadCOIL checks that COIL-100 loads with no options: fea with gnd,
// not with the angle vector of the same length.
func TestLoadCOIL(t *testing.T) {
	ds, err := Load("../testdata/coil100-32x32.mat", LoadOptions{Normalize: true})
	if err != nil {
		t.Fatal(err)
	}
	if r, c := ds.Train.Y.Dims(); r != 1024 || c != 7168 || ds.Test.Y != nil {
		t.Fatalf("Y is %d×%d, test %v", r, c, ds.Test.Y)
	}
	if len(ds.Classes) != 100 || ds.Classes[0] != 1 || ds.Classes[99] != 100 {
		t.Errorf("classes %v", ds.Classes)
	}
	c := labelCounts(ds.Train.Labels)
	if slices.Min(c) < 60 || slices.Max(c) != 72 {
		t.Errorf("class sizes from %d to %d", slices.Min(c), slices.Max(c))
	}
	checkUnitColumns(t, ds.Train.Y)
	notes := strings.Join(ds.Notes, "\n")
	if !strings.Contains(notes, `labels of "fea": "gnd"`) || !strings.Contains(notes, `whose values look like class ids, rather than "angle"`) {
		t.Errorf("notes:\n%s", notes)
	}
	t.Log(notes)
	// The paper's protocol: 10 views per object for training.
	if err := ds.Split(10, 1); err != nil {
		t.Fatal(err)
	}
	if ds.Train.Len() != 1000 || ds.Test.Len() != 6168 {
		t.Errorf("split %d/%d", ds.Train.Len(), ds.Test.Len())
	}
}

// writeMATFile writes ms to a new MAT-file and returns its path.
func writeMAT(t *testing.T, ms map[string]*mat.Dense) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "d.mat")
	if err := matfile.Write(path, nil, ms); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestLoadCommonNames checks the train/test layouts by common names and
// the explicit options.
func TestLoadCommonNames(t *testing.T) {
	yTr := mat.NewDense(2, 4, []float64{1, 2, 3, 4, 5, 6, 7, 8})
	yTe := mat.NewDense(2, 2, []float64{9, 10, 11, 12})
	lTr := mat.NewDense(1, 4, []float64{1, 2, 1, 2})
	lTe := mat.NewDense(1, 2, []float64{2, 1})
	view := mat.NewDense(1, 4, []float64{0, 5, 0, 5})
	for _, c := range []struct {
		name string
		ms   map[string]*mat.Dense
		opts LoadOptions
	}{
		{"tr_dat", map[string]*mat.Dense{"tr_dat": yTr, "tt_dat": yTe, "trls": lTr, "ttls": lTe}, LoadOptions{}},
		{"X_train", map[string]*mat.Dense{"X_train": yTr, "X_test": yTe, "y_train": lTr, "y_test": lTe}, LoadOptions{}},
		{"rows", map[string]*mat.Dense{"X_train": mat.DenseCopyOf(yTr.T()), "X_test": mat.DenseCopyOf(yTe.T()), "y_train": lTr, "y_test": lTe}, LoadOptions{}},
		{"extra vector", map[string]*mat.Dense{"Y_train": yTr, "Y_test": yTe, "label_train": lTr, "label_test": lTe, "view_train": view}, LoadOptions{}},
		{"named", map[string]*mat.Dense{"A": yTr, "B": yTe, "a": lTr, "b": lTe}, LoadOptions{YTrainVar: "A", YTestVar: "B", LabelTrainVar: "a", LabelTestVar: "b"}},
		{"named data", map[string]*mat.Dense{"A": yTr, "B": yTe, "trls": lTr, "ttls": lTe}, LoadOptions{YTrainVar: "A", YTestVar: "B"}},
	} {
		ds, err := Load(writeMAT(t, c.ms), c.opts)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if !mat.Equal(ds.Train.Y, yTr) || !mat.Equal(ds.Test.Y, yTe) ||
			!slices.Equal(ds.Train.Labels, []int{1, 2, 1, 2}) || !slices.Equal(ds.Test.Labels, []int{2, 1}) {
			t.Errorf("%s: train %v %v test %v %v", c.name, mat.Formatted(ds.Train.Y), ds.Train.Labels, mat.Formatted(ds.Test.Y), ds.Test.Labels)
		}
	}

	// Errors name the option that resolves them.
	for _, c := range []struct {
		ms     map[string]*mat.Dense
		opts   LoadOptions
		option string
		want   string
	}{
		{map[string]*mat.Dense{"X": yTr, "a": lTr, "b": lTr}, LoadOptions{}, "LabelVar", `several integer vectors could label "X"`},
		{map[string]*mat.Dense{"X": yTr, "Z": yTr, "a": lTr}, LoadOptions{}, "YVar", "found 2 (X, Z)"},
		{map[string]*mat.Dense{"X": yTr, "a": lTr}, LoadOptions{YVar: "Q"}, "YVar", `no variable "Q" (the file has: X, a)`},
		{map[string]*mat.Dense{"X": yTr, "a": lTr}, LoadOptions{LabelTrainVar: "a"}, "YTrainVar", "want one training data matrix, found 0"},
		{map[string]*mat.Dense{"X": yTr}, LoadOptions{}, "LabelVar", "set NoLabels to load the samples without labels"},
	} {
		_, err := Load(writeMAT(t, c.ms), c.opts)
		var oe *OptionError
		if !errors.As(err, &oe) || oe.Option != c.option || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want option %s and %q", c.opts, err, c.option, c.want)
		}
	}
}

// TestLoadUnlabelled checks NoLabels on every file type.
func TestLoadUnlabelled(t *testing.T) {
	y := mat.NewDense(2, 3, []float64{1, 2, 3, 4, 5, 6})
	ds, err := Load(writeMAT(t, map[string]*mat.Dense{"X": y}), LoadOptions{NoLabels: true})
	if err != nil || !mat.Equal(ds.Train.Y, y) || ds.Train.Labels != nil || ds.Classes != nil {
		t.Errorf("MAT: %v %v", err, ds)
	}
	ds, err = Load(writeMAT(t, map[string]*mat.Dense{"X": y, "gnd": mat.NewDense(1, 3, []float64{1, 1, 2})}), LoadOptions{NoLabels: true, LabelVar: "gnd"})
	if err != nil || ds.Train.Labels != nil {
		t.Errorf("MAT, NoLabels with LabelVar: %v %v", err, ds)
	}
	ds, err = Load(writeMAT(t, map[string]*mat.Dense{"X_train": y, "X_test": y, "l": mat.NewDense(1, 3, []float64{1, 1, 2})}), LoadOptions{NoLabels: true})
	if err != nil || ds.Train.Labels != nil || ds.Test.Labels != nil || !mat.Equal(ds.Test.Y, y) {
		t.Errorf("MAT pair: %v %v", err, ds)
	}

	// Features orients a matrix without labels, and checks it.
	for _, c := range []struct {
		opts LoadOptions
		want mat.Matrix
		err  string
	}{
		{LoadOptions{NoLabels: true}, y, ""},
		{LoadOptions{NoLabels: true, Features: 3}, y.T(), ""},
		{LoadOptions{NoLabels: true, Features: 2}, y, ""},
		{LoadOptions{NoLabels: true, Features: 4}, nil, `variable "X" is 2×3 with samples as columns, not samples of the 4 features expected`},
		{LoadOptions{Features: 3}, nil, "with samples as columns, not samples of the 3 features expected"},
	} {
		ds, err := Load(writeMAT(t, map[string]*mat.Dense{"X": y, "l": mat.NewDense(1, 3, []float64{1, 1, 2})}), c.opts)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%+v: error %v, want %q", c.opts, err, c.err)
			}
		} else if err != nil || !mat.Equal(ds.Train.Y, c.want) {
			t.Errorf("%+v: %v %v", c.opts, err, ds)
		}
	}

	csv := "1,2,0.5\n3,4,7.25\n"
	if _, err := ReadCSV(strings.NewReader(csv), nil); err == nil || !strings.Contains(err.Error(), "set LoadOptions.NoLabels") {
		t.Errorf("CSV without labels read as labelled: %v", err)
	}
	d, err := ReadCSV(strings.NewReader(csv), &LoadOptions{NoLabels: true})
	if err != nil || d.Train.Labels != nil || !mat.Equal(d.Train.Y, mat.NewDense(3, 2, []float64{1, 3, 2, 4, 0.5, 7.25})) {
		t.Errorf("CSV NoLabels: %v %v", err, d)
	}
	if _, err := ReadCSV(strings.NewReader(csv), &LoadOptions{NoLabels: true, Features: 2}); err == nil || !strings.Contains(err.Error(), "3 features per sample, not the 2 expected") {
		t.Errorf("CSV Features: %v", err)
	}
	// An integer last column that is a feature (every value distinct).
	var b strings.Builder
	for i := range 20 {
		b.WriteString("0.5," + string(rune('0'+i%10)) + string(rune('0'+i/10)) + "\n")
	}
	var oe *OptionError
	if _, err := ReadCSV(strings.NewReader(b.String()), nil); !errors.As(err, &oe) || oe.Option != "NoLabels" ||
		!strings.Contains(err.Error(), "column 2 does not look like labels: 20 distinct values for 20 samples") {
		t.Errorf("feature column read as labels: %v", err)
	}
}

func TestReadCSVGzipLimit(t *testing.T) {
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(bytes.Repeat([]byte("0,0,0,0,0,0,0,1\n"), 1<<16)) // 1 MiB
	zw.Close()
	path := writeFile(t, "z.csv.gz", gz.Bytes())
	if _, err := Load(path, LoadOptions{MaxInflated: 1 << 19}); err == nil || !strings.Contains(err.Error(), "inflates beyond the reader's limit") {
		t.Errorf("error %v", err)
	}
	if _, err := Load(path, LoadOptions{}); err != nil {
		t.Error(err)
	}
}

// npyBytes returns v written by npyio.
func npyBytes(t *testing.T, v any) []byte {
	var b bytes.Buffer
	if err := npyio.Write(&b, v); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestLoadNPY checks .npy (unlabelled samples as rows) and .npz (named
// arrays, detected as in a MAT-file, samples as rows).
func TestLoadNPY(t *testing.T) {
	dir := t.TempDir()
	x := mat.NewDense(4, 2, []float64{1, 2, 3, 4, 5, 6, 7, 8}) // 4 samples of 2 features
	f, err := os.Create(filepath.Join(dir, "x.npy"))
	if err != nil {
		t.Fatal(err)
	}
	if err := npyio.Write(f, x); err != nil {
		t.Fatal(err)
	}
	f.Close()
	var oe *OptionError
	if _, err := Load(filepath.Join(dir, "x.npy"), LoadOptions{}); !errors.As(err, &oe) || oe.Option != "NoLabels" {
		t.Errorf("npy without NoLabels: %v", err)
	}
	ds, err := Load(filepath.Join(dir, "x.npy"), LoadOptions{NoLabels: true})
	if err != nil || !mat.Equal(ds.Train.Y, x.T()) || ds.Train.Labels != nil {
		t.Fatalf("npy: %v %v", err, ds)
	}
	// 8 values need 128 bytes as float64 with a copy, 192 with the file's.
	if _, err := Load(filepath.Join(dir, "x.npy"), LoadOptions{NoLabels: true, MaxMemory: 191}); err == nil || !strings.Contains(err.Error(), "shape [4 2] needs") {
		t.Errorf("npy above MaxMemory: %v", err)
	}
	if _, err := Load(filepath.Join(dir, "x.npy"), LoadOptions{NoLabels: true, MaxMemory: 192}); err != nil {
		t.Errorf("npy at MaxMemory: %v", err)
	}
	mf := writeMATFile(t, map[string]*mat.Dense{"X": x, "gnd": mat.NewDense(1, 4, []float64{1, 2, 1, 2})})
	if _, err := Load(mf, LoadOptions{MaxMemory: 127}); err == nil || !strings.Contains(err.Error(), `variable "X" (4×2) needs`) || !strings.Contains(err.Error(), "MaxMemory") {
		t.Errorf("MAT-file above MaxMemory: %v", err)
	}
	if _, err := Load(mf, LoadOptions{MaxMemory: 128}); err != nil {
		t.Errorf("MAT-file at MaxMemory: %v", err)
	}
	neg := []byte("\x93NUMPY\x01\x00v\x00{'descr': '<f8', 'fortran_order': False, 'shape': (-3, 2), }")
	neg = append(neg, bytes.Repeat([]byte(" "), 10+117-len(neg))...)
	neg = append(neg, '\n')
	if _, err := parseNPY(neg, nil); err == nil || !strings.Contains(err.Error(), "negative dimension") {
		t.Errorf("negative shape: %v", err)
	}

	path := filepath.Join(dir, "d.npz")
	err = npz.Write(path, map[string]any{
		"X_train": x, "y_train": []int64{3, 5, 3, 5},
		"X_test": mat.NewDense(2, 2, []float64{9, 10, 11, 12}), "y_test.npy": []int32{5, 3}, // as NumPy names members
		"angle": []float32{0, 0.5, 1, 2},
	})
	if err != nil {
		t.Fatal(err)
	}
	ds, err = Load(path, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(ds.Train.Y, x.T()) || !slices.Equal(ds.Train.Labels, []int{3, 5, 3, 5}) ||
		!mat.Equal(ds.Test.Y, mat.NewDense(2, 2, []float64{9, 11, 10, 12})) || !slices.Equal(ds.Test.Labels, []int{5, 3}) {
		t.Errorf("npz: %v %v %v %v", mat.Formatted(ds.Train.Y), ds.Train.Labels, mat.Formatted(ds.Test.Y), ds.Test.Labels)
	}
	if _, err := Load(path, LoadOptions{MaxInflated: 100}); err == nil || !strings.Contains(err.Error(), "above the reader's limit") {
		t.Errorf("npz limit: %v", err)
	}

	// Bad input.
	good, err := os.ReadFile(filepath.Join(dir, "x.npy"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		in   []byte
		want string
	}{
		{[]byte("hello world"), "bad magic"},
		{good[:len(good)-8], "needs more than"},
		{good[:20], "header of"},
		{npyBytes(t, []complex128{1, 2i}), "only real numeric"},
		{npyBytes(t, [2][2][2]float64{}), "only 1-D and 2-D arrays"},
		{npyBytes(t, []float64{}), "empty array"},
		{append(slices.Clone(good[:8]), 0xff, 0xff, 0xff, 0x00), "header of"},
	} {
		p := writeFile(t, "bad.npy", c.in)
		if _, err := Load(p, LoadOptions{NoLabels: true}); err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), p) {
			t.Errorf("%q: %v, want %q and the path", c.in, err, c.want)
		}
	}
	nan := mat.NewDense(2, 2, []float64{1, 2, 3, 0})
	nan.Set(1, 1, nan.At(0, 0)/0*0)
	p := filepath.Join(dir, "nan.npy")
	f, _ = os.Create(p)
	npyio.Write(f, nan)
	f.Close()
	if _, err := Load(p, LoadOptions{NoLabels: true}); err == nil || !strings.Contains(err.Error(), "element (1, 1) is not finite") {
		t.Errorf("NaN: %v", err)
	}
}

// fakeArrays lists arrays for the detector; it cannot read them.
type fakeArrays struct {
	arrays
	list []arrayInfo
}

func (f fakeArrays) infos() []arrayInfo { return f.list }

// Every array that is not a data matrix is named with the reason.
func TestNoDataMatrix(t *testing.T) {
	a := fakeArrays{list: []arrayInfo{
		{name: "Y", rows: 4, cols: 4, why: `variable "Y" is complex; only real arrays are supported`},
		{name: "Z", rows: 2, cols: 3, why: `variable "Z" has 3 dimensions (2×3×4); only 2-D arrays are supported`},
		{name: "S", rows: 4, cols: 4},
		{name: "gnd", rows: 1, cols: 4, ok: true},
	}}
	_, err := datasetFrom(a, "x", &LoadOptions{})
	for _, want := range []string{"no numeric data matrix found: ", `"Y" is complex`, `"Z" has 3 dimensions`, `"S" cannot be read`, `"gnd" is a 1×4 vector`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%v, want %q", err, want)
		}
	}
	if _, err := datasetFrom(a, "x", &LoadOptions{LabelVar: "gnd"}); err == nil || !strings.Contains(err.Error(), `no data matrix found: variable "Y" is complex`) {
		t.Errorf("with the labels named: %v", err)
	}
}
