package matfile

import (
	"bytes"
	"encoding/binary"
	"os"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// matSeeds returns small MAT-files for the fuzz corpus: files written by
// Encode and built by hand (both byte orders, compressed), the SciPy
// files, the first bytes of the real data files, and truncated and
// corrupted versions of all of them.
func matSeeds(t testing.TB) [][]byte {
	var seeds [][]byte
	var buf bytes.Buffer
	if err := Encode(&buf, nil, map[string]*mat.Dense{
		"Y":     mat.NewDense(2, 3, []float64{1, 0, 2, 0, 3, 4}),
		"label": mat.NewDense(1, 3, []float64{1, 2, 1}),
	}); err != nil {
		t.Fatal(err)
	}
	seeds = append(seeds, buf.Bytes())
	for _, b := range []matBuilder{{binary.LittleEndian}, {binary.BigEndian}} {
		seeds = append(seeds, slices.Concat(b.header(),
			b.matrix(b.flags(mxINT16, 0), b.dims(1, 3), b.small(miINT8, []byte("l")), b.elem(miINT16, make([]byte, 6))),
			b.compress(b.doubleVar("Y_train", 2, 1, []float64{1, 2})),
			b.matrix(b.flags(mxUINT8, flagLogical), b.dims(1, 2), b.elem(miINT8, []byte("mask")), b.small(miUINT8, []byte{1, 0})),
		))
	}
	for _, name := range []string{"scipy-types.mat", "scipy-types-z.mat", "scipy-unsupported.mat"} {
		b, err := os.ReadFile("../testdata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		seeds = append(seeds, b)
	}
	for _, name := range []string{"argender.mat", "flower17-split1.mat"} {
		f, err := os.Open("../testdata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		head := make([]byte, 1024)
		n, _ := f.Read(head)
		f.Close()
		seeds = append(seeds, head[:n])
	}
	for _, s := range slices.Clone(seeds) {
		seeds = append(seeds, s[:len(s)/2], s[:len(s)-3])
		c := slices.Clone(s)
		c[len(c)*2/3] ^= 0x5a
		seeds = append(seeds, c)
	}
	return seeds
}

// FuzzRead checks that any input gives a File or an error, never a
// panic, and that the variables of a parsed file convert or fail cleanly.
func FuzzRead(f *testing.F) {
	for _, s := range matSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		mf, err := Read(bytes.NewReader(in), nil)
		if err != nil {
			if mf != nil {
				t.Fatal("File and error")
			}
			return
		}
		for _, v := range mf.Vars() {
			m, err := mf.Dense(v.Name)
			if err == nil {
				if r, c := m.Dims(); r != v.Rows || c != v.Cols {
					t.Fatalf("%s: Dense is %d×%d, Vars says %d×%d", v.Name, r, c, v.Rows, v.Cols)
				}
				s, err := mf.CSC(v.Name)
				if err != nil || !mat.Equal(s, m) && !hasNaN(m) {
					t.Fatalf("%s: CSC differs from Dense: %v", v.Name, err)
				}
			} else if v.Supported && v.Rows*v.Cols != 0 {
				t.Fatalf("%s: supported but Dense fails: %v", v.Name, err)
			}
			if l, err := mf.Ints(v.Name); err == nil && len(l) != v.Rows*v.Cols {
				t.Fatalf("%s: %d ints from %d×%d", v.Name, len(l), v.Rows, v.Cols)
			}
			mf.Density(v.Name)
		}
	})
}

func hasNaN(m *mat.Dense) bool {
	return mat.Sum(m) != mat.Sum(m)
}
