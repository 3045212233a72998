package data

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	"github.com/james-bowman/sparse"
	"github.com/sbinet/npyio/npy"
	"gonum.org/v1/gonum/mat"
)

// npArray is one array of a NumPy file, converted to float64.
type npArray struct {
	m   *mat.Dense // shape (r, c) as r×c; shape (n,) as n×1
	err error      // why the array cannot be used, if it cannot
}

// parseNPY reads the NumPy array file b with npyio. Only real numeric and
// boolean arrays of at most two dimensions convert; others give an error.
// The header and the data size are checked against len(b) before npyio
// reads them, so a header cannot make it allocate more than the file holds,
// and against opts' memory limit, if opts is not nil.
func parseNPY(b []byte, opts *LoadOptions) (m *mat.Dense, err error) {
	defer func() {
		if r := recover(); r != nil {
			m, err = nil, fmt.Errorf("npy: malformed file (%v)", r)
		}
	}()
	if len(b) < 10 || !bytes.Equal(b[:6], npy.Magic[:]) {
		return nil, errors.New("npy: not a NumPy array file (bad magic)")
	}
	start := 10 + int(binary.LittleEndian.Uint16(b[8:]))
	switch b[6] {
	case 1:
	case 2, 3:
		if len(b) < 12 {
			return nil, errors.New("npy: truncated header")
		}
		start = 12 + int(binary.LittleEndian.Uint32(b[8:]))
	default:
		return nil, fmt.Errorf("npy: unsupported format version %d", b[6])
	}
	if start > len(b) || start < 0 {
		return nil, fmt.Errorf("npy: header of %d bytes in a file of %d", start, len(b))
	}
	r, err := npy.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("npy: %w", err)
	}
	h := r.Header.Descr
	rows, cols := 1, 1
	switch len(h.Shape) {
	case 0:
	case 1:
		rows = h.Shape[0]
	case 2:
		rows, cols = h.Shape[0], h.Shape[1]
	default:
		return nil, fmt.Errorf("npy: array of shape %v: only 1-D and 2-D arrays are supported", h.Shape)
	}
	rt := npy.TypeFrom(h.Type)
	if rt == nil || rt.Size() > 8 || strings.Contains(h.Type, "c") {
		return nil, fmt.Errorf("npy: dtype %q: only real numeric and boolean arrays are supported", h.Type)
	}
	size := int(rt.Size())
	switch {
	case rows < 0 || cols < 0:
		return nil, fmt.Errorf("npy: shape %v has a negative dimension", h.Shape)
	case rows > 0 && cols > (len(b)-start)/size/rows:
		return nil, fmt.Errorf("npy: shape %v of %s needs more than the %d data bytes of the file", h.Shape, h.Type, len(b)-start)
	}
	if opts != nil {
		// The values, their copy in the file's type, and a transposed copy.
		if err := opts.checkMemory(fmt.Sprintf("npy: shape %v", h.Shape), float64(rows)*float64(cols)*(2+float64(size)/8)); err != nil {
			return nil, err
		}
	}
	n := rows * cols
	vals := make([]float64, n)
	if n > 0 {
		if err := readNPY(r, rt.Kind().String(), vals); err != nil {
			return nil, fmt.Errorf("npy: %w", err)
		}
	}
	if rows == 0 || cols == 0 {
		return nil, fmt.Errorf("npy: empty array of shape %v", h.Shape)
	}
	if h.Fortran {
		return mat.DenseCopyOf(mat.NewDense(cols, rows, vals).T()), nil
	}
	return mat.NewDense(rows, cols, vals), nil
}

// readNPY reads the data of r, of Go kind kind, converting it to dst.
func readNPY(r *npy.Reader, kind string, dst []float64) error {
	n := len(dst)
	conv := func(ptr any, at func(i int) float64) error {
		if err := r.Read(ptr); err != nil && err != io.EOF {
			return err
		}
		for i := range dst {
			dst[i] = at(i)
		}
		return nil
	}
	switch kind {
	case "float64":
		v := make([]float64, n)
		return conv(&v, func(i int) float64 { return v[i] })
	case "float32":
		v := make([]float32, n)
		return conv(&v, func(i int) float64 { return float64(v[i]) })
	case "int8":
		v := make([]int8, n)
		return conv(&v, func(i int) float64 { return float64(v[i]) })
	case "int16":
		v := make([]int16, n)
		return conv(&v, func(i int) float64 { return float64(v[i]) })
	case "int32":
		v := make([]int32, n)
		return conv(&v, func(i int) float64 { return float64(v[i]) })
	case "int64":
		v := make([]int64, n)
		return conv(&v, func(i int) float64 { return float64(v[i]) })
	case "uint8":
		v := make([]uint8, n)
		return conv(&v, func(i int) float64 { return float64(v[i]) })
	case "uint16":
		v := make([]uint16, n)
		return conv(&v, func(i int) float64 { return float64(v[i]) })
	case "uint32":
		v := make([]uint32, n)
		return conv(&v, func(i int) float64 { return float64(v[i]) })
	case "uint64":
		v := make([]uint64, n)
		return conv(&v, func(i int) float64 { return float64(v[i]) })
	case "bool":
		v := make([]bool, n)
		return conv(&v, func(i int) float64 {
			if v[i] {
				return 1
			}
			return 0
		})
	}
	return fmt.Errorf("element type %s is not supported", kind)
}

// loadNPY reads a .npy file: one array, the samples, without labels. As
// it has no labels, it loads only with opts.NoLabels.
func loadNPY(path, name string, opts *LoadOptions) (*Dataset, error) {
	if !opts.NoLabels {
		return nil, optionErrorf("NoLabels", "a .npy file holds one array, the samples, and no labels (labelled data goes in an .npz archive with a label array)")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	m, err := parseNPY(b, opts)
	if err != nil {
		return nil, err
	}
	a := &npzArrays{names: []string{name}, m: map[string]npArray{name: {m: m}}}
	s, _, err := loadSet(a, name, "", opts.SamplesAsRows, opts)
	if err != nil {
		return nil, err
	}
	return &Dataset{Name: name, Train: s, Notes: []string{"samples from the .npy file's one array, without labels"}}, nil
}

// npzArrays are the arrays of an .npz archive (or of one .npy file).
type npzArrays struct {
	names []string // in archive order
	m     map[string]npArray
}

// openNPZ reads the .npz archive at path, inflating at most limit bytes.
func openNPZ(path string, opts *LoadOptions) (*npzArrays, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return readNPZ(b, opts)
}

// readNPZ reads the .npz archive b (a zip file of .npy members). Members
// that are not supported arrays are kept with the reason; the declared
// size of every member is checked against opts' MaxInflated, over the whole
// archive, before it is read.
func readNPZ(b []byte, opts *LoadOptions) (*npzArrays, error) {
	limit := opts.maxInflated()
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return nil, fmt.Errorf("npz: %w", err)
	}
	a := &npzArrays{m: map[string]npArray{}}
	for _, f := range zr.File {
		if strings.HasSuffix(f.Name, "/") {
			continue
		}
		// NumPy names members X.npy; npyio names them X.
		name := strings.TrimSuffix(f.Name, ".npy")
		if _, dup := a.m[name]; dup {
			return nil, fmt.Errorf("npz: duplicate array %q", name)
		}
		size := f.UncompressedSize64
		if size > uint64(limit) {
			return nil, fmt.Errorf("npz: array %q inflates to %d bytes, above the reader's limit (%d bytes left of LoadOptions.MaxInflated)", name, size, limit)
		}
		limit -= int64(size)
		rc, err := f.Open()
		if err != nil {
			return nil, fmt.Errorf("npz: array %q: %w", name, err)
		}
		data, err := io.ReadAll(io.LimitReader(rc, int64(size)+1))
		rc.Close()
		if err != nil {
			return nil, fmt.Errorf("npz: array %q: %w", name, err)
		}
		if uint64(len(data)) != size {
			return nil, fmt.Errorf("npz: array %q holds %d bytes, its header says %d", name, len(data), size)
		}
		m, err := parseNPY(data, opts)
		a.names = append(a.names, name)
		a.m[name] = npArray{m: m, err: err}
	}
	if len(a.names) == 0 {
		return nil, errors.New("npz: no arrays in the archive")
	}
	return a, nil
}

func (a *npzArrays) infos() []arrayInfo {
	s := make([]arrayInfo, 0, len(a.names))
	for _, n := range a.names {
		v := arrayInfo{name: n}
		if m := a.m[n].m; m != nil {
			v.rows, v.cols = m.Dims()
			v.ok = true
		} else if a.m[n].err != nil {
			v.why = fmt.Sprintf("array %q: %v", n, a.m[n].err)
		}
		s = append(s, v)
	}
	return s
}

func (a *npzArrays) get(name string) (*mat.Dense, error) {
	v, ok := a.m[name]
	switch {
	case !ok:
		return nil, fmt.Errorf("no array %q", name)
	case v.err != nil:
		return nil, fmt.Errorf("array %q: %w", name, v.err)
	}
	return v.m, nil
}

func (a *npzArrays) ints(name string) ([]int, error) {
	m, err := a.get(name)
	if err != nil {
		return nil, err
	}
	r, c := m.Dims()
	if r != 1 && c != 1 {
		return nil, fmt.Errorf("array %q is %d×%d, not a vector", name, r, c)
	}
	raw := m.RawMatrix().Data
	out := make([]int, len(raw))
	for k, x := range raw {
		i, ok := floatToInt(x)
		if !ok {
			return nil, fmt.Errorf("array %q: element %d (%v) is not an integer", name, k, x)
		}
		out[k] = i
	}
	return out, nil
}

func (a *npzArrays) scan(name string) (nnz, bad int, err error) {
	m, err := a.get(name)
	if err != nil {
		return 0, -1, err
	}
	r, _ := m.Dims()
	bad = -1
	for i := 0; i < r; i++ {
		for j, x := range m.RawRowView(i) {
			if x != 0 {
				nnz++
				if k := j*r + i; (math.IsNaN(x) || math.IsInf(x, 0)) && (bad < 0 || k < bad) {
					bad = k
				}
			}
		}
	}
	return nnz, bad, nil
}

func (a *npzArrays) dense(name string) (*mat.Dense, error) {
	m, err := a.get(name)
	if err != nil {
		return nil, err
	}
	return mat.DenseCopyOf(m), nil
}

func (a *npzArrays) csc(name string) (*sparse.CSC, error) {
	m, err := a.get(name)
	if err != nil {
		return nil, err
	}
	return toCSC(m), nil
}

func (a *npzArrays) rowsFirst() bool { return true }
