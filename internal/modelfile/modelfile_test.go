package modelfile

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc64"
	"io"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/internal/testutil"
	"gonum.org/v1/gonum/mat"
)

func testState() *lrsdl.State {
	big := mat.NewDense(3, 4, nil)
	for i := range 12 {
		big.Set(i/4, i%4, float64(i)+0.25)
	}
	return &lrsdl.State{
		Method:  "LRSDL",
		Options: []byte(`{"k":15,"k0":10,"lambda1":0.01}`),
		Classes: []int{-7, 1, 2, math.MaxInt, math.MinInt},
		Names:   []string{"D", "D0", "view"},
		Matrices: map[string]*mat.Dense{
			"D": mat.NewDense(2, 3, []float64{math.Pi, math.Copysign(0, -1), -1e150, 5e-324,
				-1e-300, 1e150}),
			"D0":   mat.NewDense(1, 1, []float64{1}),
			"view": big.Slice(1, 3, 1, 3).(*mat.Dense),
		},
	}
}

// decodeState is Decode without the info.
func decodeState(r io.Reader) (*lrsdl.State, error) {
	s, _, err := Decode(r)
	return s, err
}

func checkSameState(t *testing.T, got, want *lrsdl.State) {
	t.Helper()
	if got.Method != want.Method || !bytes.Equal(got.Options, want.Options) ||
		!slices.Equal(got.Classes, want.Classes) || !slices.Equal(got.Names, want.Names) ||
		len(got.Matrices) != len(want.Matrices) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	for name, m := range want.Matrices {
		if g := got.Matrices[name]; g == nil || !testutil.EqualBits(g, m) {
			t.Errorf("matrix %s: got %v, want %v", name, g, m)
		}
	}
}

func TestModelRoundTrip(t *testing.T) {
	s := testState()
	var buf bytes.Buffer
	if err := encode(&buf, s, Info{}); err != nil {
		t.Fatal(err)
	}
	got, err := decodeState(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	checkSameState(t, got, s)

	// Decode reads one model and no byte after it.
	two := append(slices.Clone(buf.Bytes()), buf.Bytes()...)
	r := bytes.NewReader(two)
	for range 2 {
		if got, err = decodeState(r); err != nil {
			t.Fatal(err)
		}
		checkSameState(t, got, s)
	}
	if r.Len() != 0 {
		t.Errorf("%d bytes left", r.Len())
	}

	// Minimal state; nil Names means sorted order.
	small := &lrsdl.State{Method: "SRC", Matrices: map[string]*mat.Dense{"b": mat.NewDense(1, 1, nil), "a": mat.NewDense(1, 2, nil)}}
	buf.Reset()
	if err := encode(&buf, small, Info{}); err != nil {
		t.Fatal(err)
	}
	got, err = decodeState(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if got.Options != nil || got.Classes != nil || !slices.Equal(got.Names, []string{"a", "b"}) {
		t.Errorf("minimal state: %+v", got)
	}
}

func TestEncodeErrors(t *testing.T) {
	m := mat.NewDense(1, 1, nil)
	for _, c := range []struct {
		s    *lrsdl.State
		want string
	}{
		{nil, "nil state"},
		{&lrsdl.State{}, "no method name"},
		{&lrsdl.State{Method: "X", Names: []string{"a", "a"}, Matrices: map[string]*mat.Dense{"a": m}}, `"a" listed twice`},
		{&lrsdl.State{Method: "X", Names: []string{"a"}, Matrices: map[string]*mat.Dense{}}, `no matrix for name "a"`},
		{&lrsdl.State{Method: "X", Names: []string{"a"}, Matrices: map[string]*mat.Dense{"a": nil}}, `no matrix for name "a"`},
		{&lrsdl.State{Method: "X", Names: []string{"a"}, Matrices: map[string]*mat.Dense{"a": {}}}, `matrix "a" is empty`},
		{&lrsdl.State{Method: "X", Names: []string{"a"}, Matrices: map[string]*mat.Dense{"a": m, "b": m}}, `matrix "b" is not in Names`},
	} {
		if err := Encode(&bytes.Buffer{}, c.s); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.s, err, c.want)
		}
	}
}

// reseal recomputes the length and checksum of an encoded model after its
// body has been edited.
func reseal(b []byte) []byte {
	b = slices.Clone(b[:len(b)-8])
	binary.LittleEndian.PutUint64(b[16:], uint64(len(b)-headerLen))
	return binary.LittleEndian.AppendUint64(b, crc64.Checksum(b, crcTable))
}

func TestDecodeMalformed(t *testing.T) {
	var buf bytes.Buffer
	if err := encode(&buf, testState(), Info{}); err != nil {
		t.Fatal(err)
	}
	good := buf.Bytes()

	// Every truncation and every single-byte corruption is an error.
	for n := 0; n < len(good); n++ {
		_, err := decodeState(bytes.NewReader(good[:n]))
		if err == nil || !strings.Contains(err.Error(), "truncated") {
			t.Fatalf("truncated to %d bytes: %v", n, err)
		}
	}
	for i := range good {
		bad := slices.Clone(good)
		bad[i] ^= 0x10
		if _, err := decodeState(bytes.NewReader(bad)); err == nil {
			t.Fatalf("byte %d corrupted: no error", i)
		}
	}

	edit := func(f func(b []byte)) []byte {
		b := slices.Clone(good)
		f(b)
		return b
	}
	for _, c := range []struct {
		name string
		in   []byte
		want string
	}{
		{"magic", edit(func(b []byte) { copy(b, "NOTMODEL") }), `not a model file (bad magic "NOTMODEL")`},
		{"short non-model", []byte("MATLAB 5.0"), "not a model file"},
		{"version", edit(func(b []byte) { b[8] = 4 }), "unsupported version 4 (this package reads versions 1 to 3)"},
		{"version 0", edit(func(b []byte) { b[8] = 0 }), "unsupported version 0"},
		{"flags", edit(func(b []byte) { b[12] = 1 }), "unknown flags 0x1"},
		{"length", edit(func(b []byte) { binary.LittleEndian.PutUint64(b[16:], 1<<62) }), "truncated: header says"},
		{"huge length", edit(func(b []byte) { binary.LittleEndian.PutUint64(b[16:], math.MaxUint64) }), "invalid body length"},
		{"checksum", edit(func(b []byte) { b[30] ^= 1 }), "checksum mismatch"},
		{"stored checksum", edit(func(b []byte) { b[len(b)-1] ^= 1 }), "checksum mismatch"},
	} {
		_, err := decodeState(bytes.NewReader(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}

	// Bodies with a valid checksum but inconsistent content, in the
	// version 1 layout (no info).
	le := binary.LittleEndian
	u32 := func(b []byte, v uint32) []byte { return le.AppendUint32(b, v) }
	u64 := func(b []byte, v uint64) []byte { return le.AppendUint64(b, v) }
	method := append(u32(nil, 1), 'M')
	noMats := u32(u64(u64(slices.Clone(method), 0), 0), 0)
	mat1 := func(name string, r, c uint64, vals int) []byte {
		b := append(u32(nil, uint32(len(name))), name...)
		b = u64(u64(b, r), c)
		return append(b, make([]byte, 8*vals)...)
	}
	withMats := func(n uint32, ms ...[]byte) []byte {
		b := u32(u64(u64(slices.Clone(method), 0), 0), n)
		return slices.Concat(append([][]byte{b}, ms...)...)
	}
	for _, c := range []struct {
		name string
		body []byte
		want string
	}{
		{"empty", nil, "method length at byte 24 needs 4 bytes, 0 left"},
		{"empty method", u32(u64(u64(u32(nil, 0), 0), 0), 0), "empty method name"},
		{"method length", u32(nil, 1000), "method name at byte 28 needs 1000 bytes"},
		{"options length", u64(slices.Clone(method), 1<<40), "options at byte 37 needs 1099511627776 bytes"},
		{"class count", u64(u64(slices.Clone(method), 0), 1<<61), "2305843009213693952 class labels do not fit"},
		{"matrix count", withMats(2, mat1("a", 1, 1, 1)), "matrix name length at byte"},
		{"zero rows", withMats(1, mat1("a", 0, 5, 0)), `matrix "a" has zero size 0×5`},
		{"huge matrix", withMats(1, mat1("a", 1<<32, 1<<32, 1)), `matrix "a": 4294967296×4294967296 values do not fit`},
		{"short matrix", withMats(1, mat1("a", 2, 2, 3)), `matrix "a": 2×2 values do not fit in the 24 bytes left`},
		{"duplicate", withMats(2, mat1("a", 1, 1, 1), mat1("a", 1, 1, 1)), `matrix "a" appears twice`},
		{"trailing", append(slices.Clone(noMats), 0), "1 bytes of unexplained data"},
		{"NaN", withMats(1, u64(mat1("a", 1, 1, 0), math.Float64bits(math.NaN()))), `matrix "a" holds NaN at row 1, column 1`},
		{"Inf", withMats(2, mat1("a", 1, 1, 1), u64(mat1("b", 1, 2, 1), math.Float64bits(math.Inf(-1)))), `matrix "b" holds -Inf at row 1, column 2`},
	} {
		hdr := append([]byte(magic), make([]byte, 16)...)
		le.PutUint32(hdr[8:], 1)
		in := reseal(append(append(hdr, c.body...), make([]byte, 8)...))
		_, err := decodeState(bytes.NewReader(in))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}

	// Version 2 bodies: the info comes first.
	for _, c := range []struct {
		name string
		body []byte
		want string
	}{
		{"info length", u64(nil, 1<<40), "info at byte 32 needs 1099511627776 bytes"},
		{"empty info", u64(noMats, 0), "model: info"},
		{"info not JSON", append(u64(nil, 3), "{x}"...), `model: info "{x}"`},
		{"unknown info", append(u64(nil, 12), `{"center":1}`...), `unknown field "center"`},
		{"info type", append(u64(nil, 16), `{"normalize":1}`...), "model: info"},
		{"info not canonical", append(u64(nil, 19), `{"normalize": true}`...), "is not as written by this package"},
	} {
		hdr := append([]byte(magic), make([]byte, 16)...)
		le.PutUint32(hdr[8:], 2)
		in := reseal(append(append(hdr, c.body...), make([]byte, 8)...))
		_, err := decodeState(bytes.NewReader(in))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}

}

// The info round-trips; version 1 files, which have none, still load;
// non-finite values are refused when writing and when reading.
func TestModelInfo(t *testing.T) {
	// The extreme values of "D" are no dictionary of a model trained on
	// unit-norm samples (see TestModelScale): name it otherwise.
	s := testState()
	s.Names[0], s.Matrices["X"] = "X", s.Matrices["D"]
	delete(s.Matrices, "D")
	var buf bytes.Buffer
	if err := encode(&buf, s, Info{Normalize: true}); err != nil {
		t.Fatal(err)
	}
	b := slices.Clone(buf.Bytes())
	got, info, err := Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	checkSameState(t, got, s)
	if info != (Info{Version: 3, Normalize: true}) {
		t.Errorf("info %+v", info)
	}

	// A version 1 file: the version 2 encoding without the info.
	n := binary.LittleEndian.Uint64(b[headerLen:])
	v1 := slices.Concat(b[:headerLen], b[headerLen+8+int(n):])
	binary.LittleEndian.PutUint32(v1[8:], 1)
	got, info, err = Decode(bytes.NewReader(reseal(v1)))
	if err != nil {
		t.Fatal(err)
	}
	// Its model did not scale its input: it loads with no_normalize.
	if want := `{"no_normalize":true,` + string(s.Options[1:]); string(got.Options) != want {
		t.Errorf("version 1 options %s, want %s", got.Options, want)
	}
	got.Options = s.Options
	checkSameState(t, got, s)
	if info != (Info{Version: 1}) {
		t.Errorf("version 1 info %+v", info)
	}

	for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), 1e155, -math.MaxFloat64} {
		bad := testState()
		bad.Matrices["D0"].Set(0, 0, v)
		want := `matrix "D0" holds ` + fmt.Sprint(v)
		if !math.IsInf(v, 0) && !math.IsNaN(v) {
			want = `matrix "D0" is too large: the sum of its squares overflows`
		}
		err := encode(&bytes.Buffer{}, bad, Info{})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("encoding %v: %v", v, err)
		}
	}
}

// A model file whose matrices training does not produce is refused, with
// the matrix named; a model trained on data not normalised is checked
// only for an all-zero dictionary.
func TestModelScale(t *testing.T) {
	good := func() *lrsdl.State {
		return &lrsdl.State{Method: "FDDL", Classes: []int{0, 1}, Names: []string{"Dbar", "Mc", "part"},
			Matrices: map[string]*mat.Dense{
				"Dbar": mat.NewDense(2, 2, []float64{0.6, 1, 0.8, 0}),
				"Mc":   mat.NewDense(2, 2, []float64{0.1, 0, 0, 0.1}),
				"part": mat.NewDense(1, 3, []float64{0, 1, 2e9}),
			}}
	}
	decode := func(s *lrsdl.State, normalize bool) error {
		var buf bytes.Buffer
		if err := encode(&buf, s, Info{Normalize: normalize}); err != nil {
			t.Fatal(err)
		}
		_, _, err := Decode(&buf)
		return err
	}
	if err := decode(good(), true); err != nil {
		t.Errorf("a good model: %v", err)
	}
	for _, c := range []struct {
		name      string
		edit      func(s *lrsdl.State)
		normalize bool
		want      string
	}{
		{"scaled means", func(s *lrsdl.State) { s.Matrices["Mc"].Scale(1e150, s.Matrices["Mc"]) }, true, `matrix "Mc" holds 1e+149 at row 1, column 1`},
		{"scaled atoms", func(s *lrsdl.State) { s.Matrices["Dbar"].Scale(1e150, s.Matrices["Dbar"]) }, true, `atom 1 of dictionary "Dbar" has norm 1e+150`},
		{"zero atoms", func(s *lrsdl.State) { s.Matrices["Dbar"].Zero() }, true, `dictionary "Dbar" is all zero`},
		{"zero atoms, not normalised", func(s *lrsdl.State) { s.Matrices["Dbar"].Zero() }, false, `dictionary "Dbar" is all zero`},
	} {
		s := good()
		c.edit(s)
		if err := decode(s, c.normalize); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	s := good()
	s.Matrices["Mc"].Scale(1e150, s.Matrices["Mc"])
	if err := decode(s, false); err != nil {
		t.Errorf("large means of a model not normalised: %v", err)
	}
}

// Encode records Normalize when the options are an object that does not
// set no_normalize, and the temperature.
func TestEncodeInfo(t *testing.T) {
	for _, c := range []struct {
		opts, info string
	}{
		{`{"k":3}`, `{"normalize":true,"temperature":0.5}`},
		{`{"k":3,"no_normalize":false}`, `{"normalize":true,"temperature":0.5}`},
		{`{"no_normalize":true,"k":3}`, `{"normalize":false,"temperature":0.5}`},
		{``, `{"normalize":false,"temperature":0.5}`},
		{`[1]`, `{"normalize":false,"temperature":0.5}`},
	} {
		s := &lrsdl.State{Method: "M", Options: []byte(c.opts), Temperature: 0.5,
			Matrices: map[string]*mat.Dense{"a": mat.NewDense(1, 1, []float64{2})}}
		var buf bytes.Buffer
		if err := Encode(&buf, s); err != nil {
			t.Fatal(err)
		}
		b := buf.Bytes()
		if n := binary.LittleEndian.Uint64(b[headerLen:]); string(b[headerLen+8:headerLen+8+int(n)]) != c.info {
			t.Errorf("options %s: info %s, want %s", c.opts, b[headerLen+8:headerLen+8+int(n)], c.info)
		}
		got, err := decodeState(&buf)
		if err != nil || got.Temperature != 0.5 {
			t.Errorf("options %s: %+v, %v", c.opts, got, err)
		}
	}
}
