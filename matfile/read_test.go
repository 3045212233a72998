package matfile

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lrsdl/lrsdl/internal/testutil"
	"gonum.org/v1/gonum/mat"
)

// matBuilder assembles MAT v5 files element by element for tests.
type matBuilder struct {
	order interface {
		binary.ByteOrder
		binary.AppendByteOrder
	}
}

func (b matBuilder) header() []byte {
	h := bytes.Repeat([]byte{' '}, matHeaderLen)
	copy(h, "MATLAB 5.0 MAT-file, test")
	h[116], h[117] = 0, 0
	b.order.PutUint16(h[124:], 0x0100)
	if b.order.String() == binary.LittleEndian.String() {
		copy(h[126:], "IM")
	} else {
		copy(h[126:], "MI")
	}
	return h
}

// elem encodes a data element with a full tag, padded to 8 bytes.
func (b matBuilder) elem(typ uint32, data []byte) []byte {
	out := b.order.AppendUint32(nil, typ)
	out = b.order.AppendUint32(out, uint32(len(data)))
	out = append(out, data...)
	for len(out)%8 != 0 {
		out = append(out, 0)
	}
	return out
}

// small encodes a data element in the small element format.
func (b matBuilder) small(typ uint32, data []byte) []byte {
	out := b.order.AppendUint32(nil, uint32(len(data))<<16|typ)
	out = append(out, data...)
	for len(out) < 8 {
		out = append(out, 0)
	}
	return out
}

func (b matBuilder) flags(class uint8, flags uint8) []byte {
	d := b.order.AppendUint32(nil, uint32(flags)<<8|uint32(class))
	return b.elem(miUINT32, b.order.AppendUint32(d, 0))
}

func (b matBuilder) dims(dims ...int) []byte {
	var d []byte
	for _, n := range dims {
		d = b.order.AppendUint32(d, uint32(n))
	}
	return b.elem(miINT32, d)
}

// matrix encodes a miMATRIX element from its sub-elements.
func (b matBuilder) matrix(parts ...[]byte) []byte {
	return b.elem(miMATRIX, slices.Concat(parts...))
}

// doubleVar encodes a real double matrix given in column-major order.
func (b matBuilder) doubleVar(name string, r, c int, colMajor []float64) []byte {
	var d []byte
	for _, v := range colMajor {
		d = b.order.AppendUint64(d, math.Float64bits(v))
	}
	return b.matrix(b.flags(mxDOUBLE, 0), b.dims(r, c), b.elem(miINT8, []byte(name)), b.elem(miDOUBLE, d))
}

// compress wraps an element into a miCOMPRESSED element.
func (b matBuilder) compress(element []byte) []byte {
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write(element)
	zw.Close()
	out := b.order.AppendUint32(nil, miCOMPRESSED)
	out = b.order.AppendUint32(out, uint32(z.Len()))
	return append(out, z.Bytes()...)
}

var le = matBuilder{binary.LittleEndian}

func mustDense(t *testing.T, f *File, name string) *mat.Dense {
	t.Helper()
	m, err := f.Dense(name)
	if err != nil {
		t.Fatalf("Dense(%q): %v", name, err)
	}
	return m
}

func counts(labels []int) map[int]int {
	c := make(map[int]int)
	for _, l := range labels {
		c[l]++
	}
	return c
}

func wantVars(t *testing.T, f *File, want map[string][2]int) {
	t.Helper()
	vs := f.Vars()
	if len(vs) != len(want) {
		t.Errorf("got %d variables, want %d: %+v", len(vs), len(want), vs)
	}
	for _, v := range vs {
		w, ok := want[v.Name]
		if !ok || v.Rows != w[0] || v.Cols != w[1] || !v.Supported || v.Class != "double" {
			t.Errorf("variable %+v, want %d×%d supported double", v, w[0], w[1])
		}
	}
}

// The expected values below were read with SciPy 1.10 (scipy.io.loadmat).
func TestReadMATARGender(t *testing.T) {
	f, err := Open("../testdata/argender.mat", nil)
	if err != nil {
		t.Fatal(err)
	}
	wantVars(t, f, map[string][2]int{"Y_train": {300, 700}, "Y_test": {300, 700}, "label_train": {1, 700}, "label_test": {1, 700}})
	yTrain, yTest := mustDense(t, f, "Y_train"), mustDense(t, f, "Y_test")
	for _, c := range []struct {
		m    *mat.Dense
		i, j int
		want float64
	}{
		{yTrain, 0, 0, -0.8946054018479899},
		{yTrain, 1, 0, -0.24479702398698505},
		{yTrain, 5, 17, 0.07088222686850172},
		{yTrain, 123, 456, -0.011178112899865757},
		{yTrain, 299, 699, 0.003201382676817204},
		{yTest, 0, 0, -0.8495205134703407},
		{yTest, 7, 300, 0.008702306833411782},
		{yTest, 299, 699, 0.0007378223740859452},
	} {
		if got := c.m.At(c.i, c.j); got != c.want {
			t.Errorf("At(%d, %d) = %v, want %v", c.i, c.j, got, c.want)
		}
	}
	if s := mat.Sum(yTrain); math.Abs(s-(-672.1917749082965)) > 1e-9 {
		t.Errorf("sum of Y_train = %v", s)
	}
	for _, name := range []string{"label_train", "label_test"} {
		l, err := f.Ints(name)
		if err != nil {
			t.Fatal(err)
		}
		if c := counts(l); len(c) != 2 || c[1] != 350 || c[2] != 350 {
			t.Errorf("%s counts %v, want 350 each of 1 and 2", name, c)
		}
		if !slices.IsSorted(l) {
			t.Errorf("%s not sorted by class", name)
		}
	}
}

func TestReadMATFlower(t *testing.T) {
	f, err := Open("../testdata/flower17-split1.mat", nil)
	if err != nil {
		t.Fatal(err)
	}
	wantVars(t, f, map[string][2]int{"Y_train": {10000, 1020}, "Y_test": {10000, 340}, "label_train": {1, 1020}, "label_test": {1, 340}})
	s, err := f.CSC("Y_train")
	if err != nil {
		t.Fatal(err)
	}
	if s.NNZ() != 80296 {
		t.Errorf("Y_train has %d non-zeros, want 80296", s.NNZ())
	}
	var sum, maxv float64
	s.DoNonZero(func(_, _ int, v float64) { sum += v; maxv = math.Max(maxv, v) })
	if sum != 90039 || maxv != 87 {
		t.Errorf("Y_train sum %v max %v, want 90039 and 87", sum, maxv)
	}
	var rows []int
	s.DoColNonZero(0, func(i, _ int, v float64) {
		if len(rows) < 5 {
			rows = append(rows, i)
			if v != 1 {
				t.Errorf("Y_train(%d, 0) = %v, want 1", i, v)
			}
		}
	})
	if !slices.Equal(rows, []int{373, 399, 470, 521, 668}) {
		t.Errorf("first non-zero rows of column 0: %v", rows)
	}
	if d, _ := f.Density("Y_test"); math.Abs(d-26105.0/3400000) > 1e-15 {
		t.Errorf("density of Y_test %v", d)
	}
	for name, per := range map[string]int{"label_train": 60, "label_test": 20} {
		l, err := f.Ints(name)
		if err != nil {
			t.Fatal(err)
		}
		c := counts(l)
		for k := 1; k <= 17; k++ {
			if c[k] != per {
				t.Errorf("%s: %d samples of class %d, want %d", name, c[k], k, per)
			}
		}
	}
}

// TestReadMATSciPy checks every numeric class written by an independent
// writer, plainly and compressed.
func TestReadMATSciPy(t *testing.T) {
	want := map[string][]float64{ // row-major 3×2
		"i8":     {-128, 127, 0, 1, 2, -3},
		"u8":     {0, 255, 1, 2, 3, 4},
		"i16":    {-32768, 32767, 0, 1, 2, -3},
		"u16":    {0, 65535, 1, 2, 3, 4},
		"i32":    {-1 << 31, 1<<31 - 1, 0, 1, 2, -3},
		"u32":    {0, 1<<32 - 1, 1, 2, 3, 4},
		"i64":    {-1 << 63, 1<<63 - 1, 0, 1, 2, -3},
		"u64":    {0, 1<<64 - 1, 1, 2, 3, 4},
		"single": {1.5, -2.25, float64(float32(0.1)), float64(float32(1e30)), 0, math.Copysign(0, -1)},
		"dbl":    {math.Pi, -math.E, 1e-300, 1e300, 0, math.NaN()},
		"flag":   {1, 0, 0, 1, 1, 1},
	}
	classes := map[string]string{"i8": "int8", "u8": "uint8", "i16": "int16", "u16": "uint16", "i32": "int32",
		"u32": "uint32", "i64": "int64", "u64": "uint64", "single": "single", "dbl": "double", "flag": "logical"}
	for _, file := range []string{"scipy-types.mat", "scipy-types-z.mat"} {
		f, err := Open(filepath.Join("../testdata", file), nil)
		if err != nil {
			t.Fatal(err)
		}
		for name, w := range want {
			info, ok := f.Var(name)
			if !ok || info.Class != classes[name] || info.Rows != 3 || info.Cols != 2 {
				t.Errorf("%s: %s: %+v", file, name, info)
			}
			got := mustDense(t, f, name).RawMatrix().Data
			for k := range w {
				if got[k] != w[k] && !(math.IsNaN(got[k]) && math.IsNaN(w[k])) || math.Signbit(got[k]) != math.Signbit(w[k]) {
					t.Errorf("%s: %s[%d] = %v, want %v", file, name, k, got[k], w[k])
				}
			}
		}
		l, err := f.Ints("labels")
		if err != nil || !slices.Equal(l, []int{3, 3, 7, -1, 7}) {
			t.Errorf("%s: Ints(labels) = %v, %v", file, l, err)
		}
		if _, err := f.Ints("fracvec"); err == nil || !strings.Contains(err.Error(), "not an integer") {
			t.Errorf("%s: Ints(fracvec): %v, want not an integer", file, err)
		}
		if _, err := f.Ints("u64"); err == nil || !strings.Contains(err.Error(), "not a vector") {
			t.Errorf("%s: Ints(u64): %v, want not a vector", file, err)
		}
		if info, _ := f.Var("empty"); info.Rows != 0 || info.Cols != 0 || !info.Supported {
			t.Errorf("%s: empty: %+v", file, info)
		}
		if _, err := f.Dense("empty"); err == nil || !strings.Contains(err.Error(), "empty") {
			t.Errorf("%s: Dense(empty): %v, want empty", file, err)
		}
		if _, err := f.Dense("nosuch"); err == nil || !strings.Contains(err.Error(), `no variable "nosuch"`) {
			t.Errorf("%s: Dense(nosuch): %v", file, err)
		}
	}
}

func TestReadMATUnsupported(t *testing.T) {
	f, err := Open("../testdata/scipy-unsupported.mat", nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{
		"acell":    "is a cell array",
		"astruct":  "is a struct array",
		"achar":    "is a char array",
		"asparse":  "is a sparse array",
		"acomplex": "is complex",
		"a3d":      "has 3 dimensions (2×3×4)",
	} {
		info, ok := f.Var(name)
		if !ok || info.Supported || !strings.Contains(info.Unsupported, want) {
			t.Errorf("%s: %+v, want Unsupported saying %q", name, info, want)
		}
		if _, err := f.Dense(name); err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), name) {
			t.Errorf("Dense(%s): %v, want %q", name, err, want)
		}
		if _, err := f.Ints(name); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Ints(%s): %v, want %q", name, err, want)
		}
	}
	if m := mustDense(t, f, "ok"); !mat.Equal(m, mat.NewDense(2, 2, []float64{1, 2, 3, 4})) {
		t.Errorf("ok = %v", mat.Formatted(m))
	}
}

func TestMATRoundTrip(t *testing.T) {
	nan := math.Float64frombits(0x7ff8000000000123) // NaN with a payload
	ms := map[string]*mat.Dense{
		"D":                mat.NewDense(3, 2, []float64{1, -2, math.Pi, 1e-310, math.Inf(1), nan}),
		"long_name_matrix": mat.NewDense(1, 5, []float64{0, math.Copysign(0, -1), 3, 4, 5}),
		"abcd":             mat.NewDense(2, 1, []float64{7, 8}),
	}
	// A view with a stride wider than its columns.
	big := mat.NewDense(4, 4, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
	ms["view"] = big.Slice(1, 3, 1, 4).(*mat.Dense)
	names := []string{"view", "D", "long_name_matrix", "abcd"}
	path := filepath.Join(t.TempDir(), "out.mat")
	if err := Write(path, names, ms); err != nil {
		t.Fatal(err)
	}
	f, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	vs := f.Vars()
	for i, v := range vs {
		if v.Name != names[i] {
			t.Errorf("variable %d is %q, want %q", i, v.Name, names[i])
		}
	}
	for name, m := range ms {
		if got := mustDense(t, f, name); !testutil.EqualBits(got, m) {
			t.Errorf("%s: got %v, want %v", name, mat.Formatted(got), mat.Formatted(m))
		}
	}
	// The writer's output is the same when re-encoded.
	var a, b bytes.Buffer
	if err := Encode(&a, nil, ms); err != nil {
		t.Fatal(err)
	}
	f2, err := Read(bytes.NewReader(a.Bytes()), nil)
	if err != nil {
		t.Fatal(err)
	}
	back := make(map[string]*mat.Dense)
	for _, v := range f2.Vars() {
		back[v.Name] = mustDense(t, f2, v.Name)
	}
	if err := Encode(&b, nil, back); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("re-encoding a read file changed its bytes")
	}
}

func TestEncodeMATErrors(t *testing.T) {
	m := mat.NewDense(1, 1, []float64{1})
	for _, c := range []struct {
		names []string
		ms    map[string]*mat.Dense
		want  string
	}{
		{nil, nil, "no matrices"},
		{[]string{"1x"}, map[string]*mat.Dense{"1x": m}, "not a valid MATLAB variable name"},
		{[]string{"a b"}, map[string]*mat.Dense{"a b": m}, "not a valid MATLAB variable name"},
		{[]string{""}, map[string]*mat.Dense{"": m}, "empty variable name"},
		{[]string{strings.Repeat("a", 64)}, map[string]*mat.Dense{strings.Repeat("a", 64): m}, "longer than 63"},
		{[]string{"a", "a"}, map[string]*mat.Dense{"a": m}, `"a" listed twice`},
		{[]string{"a"}, map[string]*mat.Dense{"b": m}, `no matrix for name "a"`},
		{[]string{"a"}, map[string]*mat.Dense{"a": m, "b": m}, `"b" is not in the list`},
		{[]string{"a"}, map[string]*mat.Dense{"a": {}}, `"a" is empty`},
	} {
		var buf bytes.Buffer
		err := Encode(&buf, c.names, c.ms)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Encode(%q): %v, want %q", c.names, err, c.want)
		}
	}
	// A failed write leaves no file behind, and an old file untouched.
	dir := t.TempDir()
	path := filepath.Join(dir, "x.mat")
	if err := Write(path, []string{"1x"}, map[string]*mat.Dense{"1x": m}); err == nil {
		t.Fatal("Write with a bad name succeeded")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("failed Write left %v", ents)
	}
}

// TestReadMATBuilt checks features that the sample files do not have:
// big-endian files, small data elements for data, data stored in a
// smaller type than the class, compressed elements with padding.
func TestReadMATBuilt(t *testing.T) {
	for _, b := range []matBuilder{{binary.LittleEndian}, {binary.BigEndian}} {
		var u16 []byte
		for _, v := range []uint16{1, 2, 3, 4, 5, 6} {
			u16 = b.order.AppendUint16(u16, v)
		}
		file := slices.Concat(b.header(),
			// 2×3 double stored as miUINT16.
			b.matrix(b.flags(mxDOUBLE, 0), b.dims(2, 3), b.small(miINT8, []byte("A")), b.elem(miUINT16, u16)),
			// 1×2 int8 with data in a small element.
			b.matrix(b.flags(mxINT8, 0), b.dims(1, 2), b.small(miINT8, []byte("lab")), b.small(miINT8, []byte{0xff, 9})),
			b.compress(b.doubleVar("Z", 1, 1, []float64{2.5})),
			// 1×2 uint64 whose second value overflows int.
			b.matrix(b.flags(mxUINT64, 0), b.dims(1, 2), b.small(miINT8, []byte("big")),
				b.elem(miUINT64, b.order.AppendUint64(b.order.AppendUint64(nil, 1), math.MaxUint64))),
			// A nameless variable, like MATLAB's subsystem data, is skipped.
			b.doubleVar("", 1, 1, []float64{1}),
		)
		f, err := Read(bytes.NewReader(file), nil)
		if err != nil {
			t.Fatalf("%v: %v", b.order, err)
		}
		if a := mustDense(t, f, "A"); !mat.Equal(a, mat.NewDense(2, 3, []float64{1, 3, 5, 2, 4, 6})) {
			t.Errorf("%v: A = %v", b.order, mat.Formatted(a))
		}
		if l, err := f.Ints("lab"); err != nil || !slices.Equal(l, []int{-1, 9}) {
			t.Errorf("%v: lab = %v, %v", b.order, l, err)
		}
		if z := mustDense(t, f, "Z"); z.At(0, 0) != 2.5 {
			t.Errorf("%v: Z = %v", b.order, z.At(0, 0))
		}
		if n := len(f.Vars()); n != 4 {
			t.Errorf("%v: %d variables, want 4", b.order, n)
		}
		if _, err := f.Ints("big"); err == nil || !strings.Contains(err.Error(), `"big": element 1 (18446744073709551615) overflows int`) {
			t.Errorf("%v: Ints(big): %v", b.order, err)
		}
		if big := mustDense(t, f, "big"); big.At(0, 1) != math.MaxUint64 {
			t.Errorf("%v: big = %v", b.order, big.At(0, 1))
		}
	}
}

func TestReadMATMalformed(t *testing.T) {
	b := le
	good := b.doubleVar("x", 1, 2, []float64{1, 2})
	hdr := b.header()
	with := func(parts ...[]byte) []byte { return slices.Concat(append([][]byte{hdr}, parts...)...) }
	bad := func(edit func([]byte)) []byte {
		out := with(good)
		edit(out)
		return out
	}
	v4 := make([]byte, 200)
	hdf := make([]byte, 600)
	copy(hdf, hdr)
	copy(hdf[512:], "\x89HDF\r\n\x1a\n")
	v73 := bad(func(p []byte) { binary.LittleEndian.PutUint16(p[124:], 0x0200) })
	compressedBadZlib := b.compress(good)
	compressedBadZlib[len(compressedBadZlib)-1] ^= 0xff // the Adler-32 checksum
	compressedTrunc := b.compress(good)
	compressedTrunc = compressedTrunc[:len(compressedTrunc)-6]
	binary.LittleEndian.PutUint32(compressedTrunc[4:], uint32(len(compressedTrunc)-8))
	bigClaim := slices.Clone(good)
	binary.LittleEndian.PutUint32(bigClaim[4:], 0xfffffff0)
	for _, c := range []struct {
		name string
		in   []byte
		want string
	}{
		{"empty", nil, "truncated in header"},
		{"short header", hdr[:100], "truncated in header: 100 bytes"},
		{"level 4", v4, "Level 4"},
		{"hdf5", hdf, "v7.3 (HDF5)"},
		{"v7.3 version", v73, "v7.3 (HDF5)"},
		{"bad endian", bad(func(p []byte) { copy(p[126:], "XY") }), "bad endian indicator"},
		{"bad version", bad(func(p []byte) { binary.LittleEndian.PutUint16(p[124:], 0x0300) }), "unsupported MAT-file version 0x0300"},
		{"truncated tag", with(good[:5]), "truncated tag"},
		{"truncated element", with(good[:40]), "truncated miMATRIX element"},
		{"huge element claim", with(bigClaim), "tag says 4294967280 bytes"},
		{"top-level double", with(b.elem(miDOUBLE, make([]byte, 8))), "unexpected top-level element of type miDOUBLE"},
		{"bad small element", with(b.order.AppendUint32(b.order.AppendUint32(nil, 9<<16|miINT8), 0)), "claims 9 bytes"},
		{"flags type", with(b.matrix(b.elem(miINT32, make([]byte, 8)))), "array flags: want miUINT32"},
		{"unknown class", with(b.matrix(b.flags(99, 0), b.dims(1, 1))), "unknown array class 99"},
		{"missing dims", with(b.matrix(b.flags(mxDOUBLE, 0))), "dimensions: truncated tag"},
		{"one dim", with(b.matrix(b.flags(mxDOUBLE, 0), b.elem(miINT32, make([]byte, 4)))), "at least 2 values"},
		{"negative dim", with(b.matrix(b.flags(mxDOUBLE, 0), b.dims(-1, 2))), "negative dimension -1"},
		{"huge dims", with(b.matrix(b.flags(mxDOUBLE, 0), b.dims(1<<30, 1<<30, 1<<30))), "too large"},
		{"name type", with(b.matrix(b.flags(mxDOUBLE, 0), b.dims(1, 1), b.elem(miDOUBLE, make([]byte, 8)))), "array name: want miINT8"},
		{"missing data", with(b.matrix(b.flags(mxDOUBLE, 0), b.dims(1, 1), b.elem(miINT8, []byte("x")))), `variable "x": real part: truncated tag`},
		{"data type", with(b.matrix(b.flags(mxDOUBLE, 0), b.dims(1, 1), b.elem(miINT8, []byte("x")), b.elem(miUTF8, []byte("a")))), "miUTF8 is not a numeric type"},
		{"data count", with(b.matrix(b.flags(mxDOUBLE, 0), b.dims(2, 2), b.elem(miINT8, []byte("x")), b.elem(miDOUBLE, make([]byte, 24)))), "dimensions 2×2 need 4"},
		{"ragged data", with(b.matrix(b.flags(mxDOUBLE, 0), b.dims(1, 1), b.elem(miINT8, []byte("x")), b.elem(miDOUBLE, make([]byte, 7)))), "hold 0.875 values"},
		{"duplicate", with(good, good), `duplicate variable name "x"`},
		{"zlib header", with(b.elem(miCOMPRESSED, []byte("not zlib"))), "zlib"},
		{"zlib checksum", with(compressedBadZlib), "zlib: invalid checksum"},
		{"zlib truncated", with(compressedTrunc), "compressed"},
		{"compressed non-matrix", with(b.compress(b.elem(miDOUBLE, make([]byte, 8)))), "holds miDOUBLE, want miMATRIX"},
		{"compressed extra", with(b.compress(slices.Concat(good, good))), "extra data after the compressed miMATRIX"},
		{"compressed short", with(b.compress(good[:30])), "compressed miMATRIX truncated"},
	} {
		_, err := Read(bytes.NewReader(c.in), nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got error %v, want %q", c.name, err, c.want)
		}
	}
	// The path is named by Open.
	path := filepath.Join(t.TempDir(), "bad.mat")
	os.WriteFile(path, hdr[:10], 0o644)
	if _, err := Open(path, nil); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("Open: %v, want the path in the error", err)
	}
}

// TestReadMATTruncated checks that every truncation of real files fails
// cleanly (or, at element boundaries, gives fewer variables).
func TestReadMATTruncated(t *testing.T) {
	var buf bytes.Buffer
	ms := map[string]*mat.Dense{"a": mat.NewDense(2, 2, []float64{1, 2, 3, 4}), "bb_long": mat.NewDense(1, 3, []float64{5, 6, 7})}
	if err := Encode(&buf, nil, ms); err != nil {
		t.Fatal(err)
	}
	z, err := os.ReadFile("../testdata/scipy-types-z.mat")
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range [][]byte{buf.Bytes(), z} {
		full, err := Read(bytes.NewReader(file), nil)
		if err != nil {
			t.Fatal(err)
		}
		for n := 0; n < len(file); n++ {
			f, err := Read(bytes.NewReader(file[:n]), nil)
			if err == nil && len(f.Vars()) >= len(full.Vars()) {
				t.Errorf("truncated to %d of %d bytes: no error and all variables", n, len(file))
			}
		}
	}
}
