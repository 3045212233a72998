// Package modelfile is the codec of lrsdl's model files: an lrsdl.State
// with its format version, normalisation and temperature, in a versioned
// binary format with a checksum. Package methods reads and writes model
// files through it (methods.Save, methods.Load).
package modelfile

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc64"
	"io"
	"math"
	"slices"
	"sort"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
)

// Model file format, version 3. All integers are little-endian.
//
//	magic    8 bytes  "LRSDLMDL"
//	version  uint32   3
//	flags    uint32   0 (reserved)
//	length   uint64   number of bytes in the body
//	body:
//	  info     uint64 n, n bytes (JSON of Info; absent in version 1)
//	  method   uint32 n, n bytes (UTF-8)
//	  options  uint64 n, n bytes (JSON)
//	  classes  uint64 n, n × int64
//	  matrices uint32 n, then n times:
//	    name   uint32 n, n bytes
//	    rows   uint64
//	    cols   uint64
//	    data   rows×cols × float64 bits, row-major, finite with a finite sum of squares
//	checksum uint64   CRC-64 (ECMA) of everything before it
//
// Version 1 files, which have no info, still load, with a zero Info.
// Version 3 has the layout of version 2; its models scale their own input
// to unit ℓ2 norm unless their options say no_normalize, so a version 1 or
// 2 model whose info does not say Normalize loads with no_normalize set.
const (
	magic     = "LRSDLMDL"
	headerLen = 24
)

// Version is the version of the model files written by Encode.
const Version = 3

// Info is what a model file records beside the method's state.
type Info struct {
	// Version is the format version of the file read (not stored).
	Version int `json:"-"`
	// Normalize records that the model was trained on samples of unit ℓ2
	// norm: Decode then checks the scale of its matrices.
	Normalize bool `json:"normalize"`
	// Temperature is the state's softmax temperature (lrsdl.State);
	// omitted while 0.
	Temperature float64 `json:"temperature,omitempty"`
}

var crcTable = crc64.MakeTable(crc64.ECMA)

// Encode writes s to w in the model file format. Its info says Normalize
// when the options of s are a JSON object that does not set no_normalize:
// a model of package methods then scales its samples itself. Method must be
// non-empty; every name in Names must be a key of Matrices with a
// non-empty matrix of finite values and every key must be listed (when
// Names is nil, the matrices are written in sorted order of name).
func Encode(w io.Writer, s *lrsdl.State) error {
	if s == nil {
		return errors.New("model: nil state")
	}
	return encode(w, s, Info{Normalize: normalizes(s.Options)})
}

// normalizes reports whether options, a JSON object, leave no_normalize
// unset or false.
func normalizes(options []byte) bool {
	var o struct {
		NoNormalize *bool `json:"no_normalize"`
	}
	if len(options) == 0 || options[0] != '{' || json.Unmarshal(options, &o) != nil {
		return false
	}
	return o.NoNormalize == nil || !*o.NoNormalize
}

// encode writes s and info to w.
func encode(w io.Writer, s *lrsdl.State, info Info) error {
	if s.Method == "" {
		return errors.New("model: no method name")
	}
	names := s.Names
	if names == nil {
		for name := range s.Matrices {
			names = append(names, name)
		}
		sort.Strings(names)
	}
	seen := make(map[string]bool, len(names))
	for _, name := range names {
		if seen[name] {
			return fmt.Errorf("model: matrix name %q listed twice", name)
		}
		seen[name] = true
		m, ok := s.Matrices[name]
		if !ok || m == nil {
			return fmt.Errorf("model: no matrix for name %q", name)
		}
		if m.IsEmpty() {
			return fmt.Errorf("model: matrix %q is empty", name)
		}
		if err := checkFinite(name, m); err != nil {
			return err
		}
	}
	for name := range s.Matrices {
		if !seen[name] {
			return fmt.Errorf("model: matrix %q is not in Names", name)
		}
	}

	info.Temperature = s.Temperature
	js, err := json.Marshal(info)
	if err != nil {
		return fmt.Errorf("model: %w", err)
	}
	le := binary.LittleEndian
	var body []byte
	body = le.AppendUint64(body, uint64(len(js)))
	body = append(body, js...)
	body = le.AppendUint32(body, uint32(len(s.Method)))
	body = append(body, s.Method...)
	body = le.AppendUint64(body, uint64(len(s.Options)))
	body = append(body, s.Options...)
	body = le.AppendUint64(body, uint64(len(s.Classes)))
	for _, c := range s.Classes {
		body = le.AppendUint64(body, uint64(int64(c)))
	}
	body = le.AppendUint32(body, uint32(len(names)))
	for _, name := range names {
		m := s.Matrices[name]
		raw := m.RawMatrix()
		body = le.AppendUint32(body, uint32(len(name)))
		body = append(body, name...)
		body = le.AppendUint64(body, uint64(raw.Rows))
		body = le.AppendUint64(body, uint64(raw.Cols))
		body = slices.Grow(body, 8*raw.Rows*raw.Cols)
		for i := 0; i < raw.Rows; i++ {
			for _, v := range raw.Data[i*raw.Stride : i*raw.Stride+raw.Cols] {
				body = le.AppendUint64(body, math.Float64bits(v))
			}
		}
	}

	hdr := make([]byte, 0, headerLen)
	hdr = append(hdr, magic...)
	hdr = le.AppendUint32(hdr, Version)
	hdr = le.AppendUint32(hdr, 0)
	hdr = le.AppendUint64(hdr, uint64(len(body)))
	crc := crc64.Update(crc64.Checksum(hdr, crcTable), crcTable, body)
	for _, b := range [][]byte{hdr, body, le.AppendUint64(nil, crc)} {
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	return nil
}

// checkFinite returns an error if m holds a NaN or an infinity, or if the
// sum of its squares overflows, which every product with it would too.
func checkFinite(name string, m *mat.Dense) error {
	r, c := m.Dims()
	ss := 0.0
	for i := range r {
		for j := range c {
			v := m.At(i, j)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("model: matrix %q holds %v at row %d, column %d", name, v, i+1, j+1)
			}
			ss += v * v
		}
	}
	if math.IsInf(ss, 0) {
		return fmt.Errorf("model: matrix %q is too large: the sum of its squares overflows", name)
	}
	return nil
}

// Decode reads one model (format version 1 to 3) from r and no byte
// after it. It rejects input with the wrong magic, an unknown version, a
// bad checksum, non-finite values, matrices that training does not
// produce (see checkScale), or that is truncated, and allocates no more
// than the input really holds, whatever its header claims.
func Decode(r io.Reader) (*lrsdl.State, Info, error) {
	var info Info
	hdr := make([]byte, headerLen)
	if n, err := io.ReadFull(r, hdr); err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			if n >= len(magic) && string(hdr[:len(magic)]) != magic {
				return nil, info, fmt.Errorf("model: not a model file (bad magic %q)", hdr[:len(magic)])
			}
			return nil, info, fmt.Errorf("model: truncated header: %d of %d bytes", n, headerLen)
		}
		return nil, info, fmt.Errorf("model: %w", err)
	}
	if string(hdr[:8]) != magic {
		return nil, info, fmt.Errorf("model: not a model file (bad magic %q)", hdr[:8])
	}
	le := binary.LittleEndian
	info.Version = int(le.Uint32(hdr[8:]))
	if info.Version < 1 || info.Version > Version {
		return nil, Info{}, fmt.Errorf("model: unsupported version %d (this package reads versions 1 to %d)", info.Version, Version)
	}
	if f := le.Uint32(hdr[12:]); f != 0 {
		return nil, Info{}, fmt.Errorf("model: unknown flags 0x%x", f)
	}
	n := le.Uint64(hdr[16:])
	if n > math.MaxInt64-8 {
		return nil, Info{}, fmt.Errorf("model: invalid body length %d", n)
	}
	// ReadAll grows with the data actually read, so a corrupt length
	// cannot allocate more than the input holds.
	rest, err := io.ReadAll(io.LimitReader(r, int64(n)+8))
	if err != nil {
		return nil, Info{}, fmt.Errorf("model: %w", err)
	}
	if uint64(len(rest)) < n+8 {
		return nil, Info{}, fmt.Errorf("model: truncated: header says %d bytes follow, got %d", n+8, len(rest))
	}
	body := rest[:n]
	crc := crc64.Update(crc64.Checksum(hdr, crcTable), crcTable, body)
	if want := le.Uint64(rest[n:]); crc != want {
		return nil, Info{}, fmt.Errorf("model: checksum mismatch (stored %016x, computed %016x): the file is corrupt", want, crc)
	}
	s, err := decodeModelBody(body, &info)
	if err != nil {
		return nil, Info{}, err
	}
	s.Temperature = info.Temperature
	return s, info, nil
}

// modelReader reads the fields of a model body with bounds checks.
type modelReader struct {
	b   []byte
	off int
	err error
}

func (r *modelReader) take(n uint64, what string) []byte {
	if r.err != nil {
		return nil
	}
	if n > uint64(len(r.b)-r.off) {
		r.err = fmt.Errorf("model: %s at byte %d needs %d bytes, %d left", what, headerLen+r.off, n, len(r.b)-r.off)
		return nil
	}
	s := r.b[r.off : r.off+int(n)]
	r.off += int(n)
	return s
}

func (r *modelReader) u32(what string) uint64 {
	if b := r.take(4, what); b != nil {
		return uint64(binary.LittleEndian.Uint32(b))
	}
	return 0
}

func (r *modelReader) u64(what string) uint64 {
	if b := r.take(8, what); b != nil {
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}

// decodeModelBody parses the body of a model file, whose checksum has
// been verified, into a state and info (whose Version is set).
func decodeModelBody(b []byte, info *Info) (*lrsdl.State, error) {
	r := &modelReader{b: b}
	if info.Version >= 2 {
		js := r.take(r.u64("info length"), "info")
		if r.err != nil {
			return nil, r.err
		}
		dec := json.NewDecoder(bytes.NewReader(js))
		dec.DisallowUnknownFields()
		if err := dec.Decode(info); err != nil {
			return nil, fmt.Errorf("model: info %q: %v", js, err)
		}
		if c, _ := json.Marshal(info); !bytes.Equal(c, js) {
			return nil, fmt.Errorf("model: info %q is not as written by this package (%s)", js, c)
		}
	}
	s := &lrsdl.State{}
	s.Method = string(r.take(r.u32("method length"), "method name"))
	if r.err == nil && s.Method == "" {
		return nil, errors.New("model: empty method name")
	}
	if opts := r.take(r.u64("options length"), "options"); len(opts) > 0 {
		s.Options = slices.Clone(opts)
		if info.Version < 3 && !info.Normalize && opts[0] == '{' && !bytes.Contains(opts, []byte(`"no_normalize"`)) {
			sep := ","
			if bytes.Equal(bytes.TrimSpace(opts), []byte("{}")) {
				sep = ""
			}
			s.Options = append([]byte(`{"no_normalize":true`+sep), opts[1:]...)
		}
	}
	nc := r.u64("class count")
	if left := uint64(len(b) - r.off); r.err == nil && nc > left/8 {
		return nil, fmt.Errorf("model: %d class labels do not fit in the %d bytes left", nc, left)
	}
	if cb := r.take(nc*8, "class labels"); r.err == nil && nc > 0 {
		s.Classes = make([]int, nc)
		for i := range s.Classes {
			c := int64(binary.LittleEndian.Uint64(cb[8*i:]))
			if c < math.MinInt || c > math.MaxInt {
				return nil, fmt.Errorf("model: class label %d overflows int", c)
			}
			s.Classes[i] = int(c)
		}
	}
	nm := r.u32("matrix count")
	if r.err != nil {
		return nil, r.err
	}
	s.Matrices = make(map[string]*mat.Dense)
	for k := uint64(0); k < nm; k++ {
		name := string(r.take(r.u32("matrix name length"), "matrix name"))
		rows, cols := r.u64("rows"), r.u64("cols")
		if r.err != nil {
			return nil, r.err
		}
		if _, dup := s.Matrices[name]; dup {
			return nil, fmt.Errorf("model: matrix %q appears twice", name)
		}
		if rows == 0 || cols == 0 {
			return nil, fmt.Errorf("model: matrix %q has zero size %d×%d", name, rows, cols)
		}
		left := uint64(len(b) - r.off)
		if rows > left/8 || cols > left/8/rows {
			return nil, fmt.Errorf("model: matrix %q: %d×%d values do not fit in the %d bytes left", name, rows, cols, left)
		}
		data := r.take(8*rows*cols, "matrix "+name)
		v := make([]float64, rows*cols)
		for i := range v {
			v[i] = math.Float64frombits(binary.LittleEndian.Uint64(data[8*i:]))
		}
		m := mat.NewDense(int(rows), int(cols), v)
		if err := checkFinite(name, m); err != nil {
			return nil, err
		}
		s.Names = append(s.Names, name)
		s.Matrices[name] = m
	}
	if r.off != len(b) {
		return nil, fmt.Errorf("model: %d bytes of unexplained data at the end of the body", len(b)-r.off)
	}
	if err := checkScale(s, info.Normalize); err != nil {
		return nil, err
	}
	return s, nil
}
