package data

import (
	"bytes"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/lrsdl/lrsdl/matfile"
	"github.com/sbinet/npyio"
	"github.com/sbinet/npyio/npz"
	"gonum.org/v1/gonum/mat"
)

// matSeeds returns small MAT-files for the fuzz corpus: files written by
// matfile.Encode, the SciPy files, the first bytes of the real data files,
// and truncated and corrupted versions of all of them.
func matSeeds(t testing.TB) [][]byte {
	var seeds [][]byte
	for _, ms := range []map[string]*mat.Dense{
		{"Y": mat.NewDense(2, 3, []float64{1, 0, 2, 0, 3, 4}), "label": mat.NewDense(1, 3, []float64{1, 2, 1})},
		{"Y_train": mat.NewDense(2, 3, []float64{1, 0, 2, 0, 3, 4}), "Y_test": mat.NewDense(2, 2, []float64{1, 0, 2, 0}),
			"label_train": mat.NewDense(1, 3, []float64{1, 2, 1}), "label_test": mat.NewDense(1, 2, []float64{2, 1})},
	} {
		var buf bytes.Buffer
		if err := matfile.Encode(&buf, nil, ms); err != nil {
			t.Fatal(err)
		}
		seeds = append(seeds, buf.Bytes())
	}
	for _, name := range []string{"scipy-types.mat", "scipy-types-z.mat", "scipy-unsupported.mat"} {
		b, err := os.ReadFile("../testdata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		seeds = append(seeds, b)
	}
	for _, s := range slices.Clone(seeds) {
		seeds = append(seeds, s[:len(s)/2], s[:len(s)-3])
		c := slices.Clone(s)
		c[len(c)*2/3] ^= 0x5a
		seeds = append(seeds, c)
	}
	return seeds
}

// FuzzLoadMAT checks that data set detection on any parsed MAT-file gives a
// data set with one label per sample or an error, never a panic.
func FuzzLoadMAT(f *testing.F) {
	for _, s := range matSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		mf, err := matfile.Read(bytes.NewReader(in), nil)
		if err != nil {
			return
		}
		if ds, err := datasetFromMAT(mf, "fuzz", &LoadOptions{Normalize: true}); err == nil {
			if _, n := ds.Train.Y.Dims(); n != len(ds.Train.Labels) {
				t.Fatalf("%d samples and %d labels", n, len(ds.Train.Labels))
			}
		}
	})
}

// FuzzReadCSV checks that any CSV input gives a data set or an error.
func FuzzReadCSV(f *testing.F) {
	for _, s := range []string{"1,2,3\n4,5,6\n", "a,b\n1,2\n", "1,2,x\n", "0,0,1\n0,0,2\n", "1e308,1e308,1\n", "\"1\",2,3\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		ds, err := ReadCSV(bytes.NewReader(in), &LoadOptions{Normalize: true})
		if err != nil {
			return
		}
		d, n := ds.Train.Y.Dims()
		if n != len(ds.Train.Labels) || d < 1 || strings.Count(string(in), "\n")+1 < n {
			t.Fatalf("%d×%d data, %d labels", d, n, len(ds.Train.Labels))
		}
	})
}

// npySeeds returns NumPy files of every supported kind and some that are
// not, with truncated and corrupted versions.
func npySeeds(t testing.TB) [][]byte {
	var seeds [][]byte
	for _, v := range []any{
		[]float64{1, 2, 3}, []int64{1, -2}, []uint8{7}, []bool{true, false}, []float32{0.5},
		mat.NewDense(2, 3, []float64{1, 2, 3, 4, 5, 6}), []complex64{1}, [2][1][1]int16{},
	} {
		var b bytes.Buffer
		if err := npyio.Write(&b, v); err != nil {
			t.Fatal(err)
		}
		seeds = append(seeds, b.Bytes())
	}
	for _, s := range slices.Clone(seeds) {
		seeds = append(seeds, s[:len(s)/2], s[:len(s)-1])
		c := slices.Clone(s)
		c[len(c)/3] ^= 0x5a
		seeds = append(seeds, c)
	}
	return seeds
}

// FuzzReadNPY checks that any input gives an array or an error, never a
// panic, and that the array has the size its header declares.
func FuzzReadNPY(f *testing.F) {
	for _, s := range npySeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		m, err := parseNPY(in, nil)
		if err != nil {
			return
		}
		if m == nil {
			t.Fatal("nil array and nil error")
		}
		if r, c := m.Dims(); r*c > len(in) {
			t.Fatalf("%d×%d array from %d bytes", r, c, len(in))
		}
	})
}

// FuzzLoadNPZ checks that any archive gives a data set with one label per
// sample or an error, never a panic.
func FuzzLoadNPZ(f *testing.F) {
	var buf bytes.Buffer
	w := npz.NewWriter(&buf)
	w.Write("X_train.npy", mat.NewDense(3, 2, []float64{1, 2, 3, 4, 5, 6}))
	w.Write("y_train.npy", []int64{1, 2, 1})
	w.Write("X_test.npy", mat.NewDense(1, 2, []float64{1, 2}))
	w.Write("y_test.npy", []int64{2})
	w.Close()
	good := buf.Bytes()
	f.Add(good)
	f.Add(good[:len(good)/2])
	for _, s := range npySeeds(f)[:3] {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		a, err := readNPZ(in, &LoadOptions{MaxInflated: 1 << 20})
		if err != nil {
			return
		}
		if ds, err := datasetFrom(a, "fuzz", &LoadOptions{Normalize: true}); err == nil {
			if _, n := ds.Train.Y.Dims(); n != len(ds.Train.Labels) {
				t.Fatalf("%d samples and %d labels", n, len(ds.Train.Labels))
			}
		}
	})
}
