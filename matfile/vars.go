package matfile

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/james-bowman/sparse"
	"gonum.org/v1/gonum/mat"
)

// VarInfo describes one variable of a MAT-file.
type VarInfo struct {
	Name  string
	Class string // MATLAB class: "double", "single", "int8".."uint64", "logical", "char", "cell", ...
	// Rows and Cols are the first two dimensions; Dims holds all of them.
	// They are zero for classes whose dimensions are not stored (opaque).
	Rows, Cols int
	Dims       []int
	Complex    bool
	// Supported reports whether Dense can read the variable: a real
	// numeric or logical array with two dimensions. Unsupported says why
	// not, when not.
	Supported   bool
	Unsupported string
}

func dimString(dims []int) string {
	s := make([]string, len(dims))
	for i, d := range dims {
		s[i] = fmt.Sprint(d)
	}
	return strings.Join(s, "×")
}

// Vars returns the variables of the file in file order.
func (f *File) Vars() []VarInfo {
	vs := make([]VarInfo, len(f.vars))
	for i, v := range f.vars {
		vs[i], _ = f.Var(v.info.Name)
	}
	return vs
}

// Var returns the description of the named variable.
func (f *File) Var(name string) (VarInfo, bool) {
	v, ok := f.byName[name]
	if !ok {
		return VarInfo{}, false
	}
	info := v.info
	info.Dims = append([]int(nil), v.info.Dims...)
	if v.unsupported != nil {
		info.Unsupported = v.unsupported.Error()
	}
	return info, true
}

// lookup returns the named variable if it can be read as a real 2-D array.
func (f *File) lookup(name string) (*matVar, error) {
	v, ok := f.byName[name]
	if !ok {
		return nil, fmt.Errorf("matfile: no variable %q (the file has: %s)", name, strings.Join(f.names(), ", "))
	}
	if v.unsupported != nil {
		return nil, fmt.Errorf("matfile: %w", v.unsupported)
	}
	return v, nil
}

// decode converts the values k0, k0+1, ... of v (in column-major order)
// to float64, filling dst.
func (v *matVar) decode(dst []float64, k0 int) {
	o, d := v.order, v.data
	switch v.dataType {
	case miDOUBLE:
		for i := range dst {
			dst[i] = math.Float64frombits(o.Uint64(d[8*(k0+i):]))
		}
	case miSINGLE:
		for i := range dst {
			dst[i] = float64(math.Float32frombits(o.Uint32(d[4*(k0+i):])))
		}
	case miINT8:
		for i := range dst {
			dst[i] = float64(int8(d[k0+i]))
		}
	case miUINT8:
		for i := range dst {
			dst[i] = float64(d[k0+i])
		}
	case miINT16:
		for i := range dst {
			dst[i] = float64(int16(o.Uint16(d[2*(k0+i):])))
		}
	case miUINT16:
		for i := range dst {
			dst[i] = float64(o.Uint16(d[2*(k0+i):]))
		}
	case miINT32:
		for i := range dst {
			dst[i] = float64(int32(o.Uint32(d[4*(k0+i):])))
		}
	case miUINT32:
		for i := range dst {
			dst[i] = float64(o.Uint32(d[4*(k0+i):]))
		}
	case miINT64:
		for i := range dst {
			dst[i] = float64(int64(o.Uint64(d[8*(k0+i):])))
		}
	case miUINT64:
		for i := range dst {
			dst[i] = float64(o.Uint64(d[8*(k0+i):]))
		}
	}
}

// columns calls fn with each column of v in turn. The slice passed to fn
// is reused between calls.
func (v *matVar) columns(fn func(j int, col []float64)) {
	r, c := v.info.Rows, v.info.Cols
	col := make([]float64, r)
	for j := 0; j < c; j++ {
		v.decode(col, j*r)
		fn(j, col)
	}
}

func (v *matVar) nnz() int {
	n := 0
	v.columns(func(_ int, col []float64) {
		for _, x := range col {
			if x != 0 {
				n++
			}
		}
	})
	return n
}

func (v *matVar) checkNonEmpty() error {
	if v.info.Rows == 0 || v.info.Cols == 0 {
		return fmt.Errorf("matfile: variable %q is empty (%d×%d)", v.info.Name, v.info.Rows, v.info.Cols)
	}
	return nil
}

// Dense returns the named variable converted to float64. It is an error if
// the variable is not a real numeric or logical 2-D array, or is empty.
func (f *File) Dense(name string) (*mat.Dense, error) {
	v, err := f.lookup(name)
	if err != nil {
		return nil, err
	}
	if err := v.checkNonEmpty(); err != nil {
		return nil, err
	}
	r, c := v.info.Rows, v.info.Cols
	m := mat.NewDense(r, c, nil)
	raw := m.RawMatrix()
	v.columns(func(j int, col []float64) {
		for i, x := range col {
			raw.Data[i*raw.Stride+j] = x
		}
	})
	return m, nil
}

// CSC returns the named variable converted to float64 in compressed sparse
// column form, without forming a dense matrix. The conditions are those of
// Dense.
func (f *File) CSC(name string) (*sparse.CSC, error) {
	v, err := f.lookup(name)
	if err != nil {
		return nil, err
	}
	if err := v.checkNonEmpty(); err != nil {
		return nil, err
	}
	return v.csc(), nil
}

func (v *matVar) csc() *sparse.CSC {
	nnz := v.nnz()
	indptr := make([]int, v.info.Cols+1)
	ind := make([]int, 0, nnz)
	val := make([]float64, 0, nnz)
	v.columns(func(j int, col []float64) {
		for i, x := range col {
			if x != 0 {
				ind = append(ind, i)
				val = append(val, x)
			}
		}
		indptr[j+1] = len(ind)
	})
	return sparse.NewCSC(v.info.Rows, v.info.Cols, indptr, ind, val)
}

// Scan returns the number of non-zero entries of the named variable and the
// column-major index of its first entry that is NaN or ±Inf, or −1. The
// conditions are those of Dense.
func (f *File) Scan(name string) (nnz, firstNonFinite int, err error) {
	v, err := f.lookup(name)
	if err != nil {
		return 0, -1, err
	}
	if err := v.checkNonEmpty(); err != nil {
		return 0, -1, err
	}
	firstNonFinite = -1
	v.columns(func(j int, col []float64) {
		for i, x := range col {
			if x != 0 {
				nnz++
				if firstNonFinite < 0 && (math.IsNaN(x) || math.IsInf(x, 0)) {
					firstNonFinite = j*v.info.Rows + i
				}
			}
		}
	})
	return nnz, firstNonFinite, nil
}

// Density returns the fraction of non-zero entries of the named variable.
func (f *File) Density(name string) (float64, error) {
	v, err := f.lookup(name)
	if err != nil {
		return 0, err
	}
	if err := v.checkNonEmpty(); err != nil {
		return 0, err
	}
	return float64(v.nnz()) / (float64(v.info.Rows) * float64(v.info.Cols)), nil
}

// Ints returns the named variable, which must be a real numeric or logical
// vector (1×n or n×1) of integer values, as a slice. Integer storage is
// converted exactly; floating-point values must be whole numbers that fit
// in an int.
func (f *File) Ints(name string) ([]int, error) {
	v, err := f.lookup(name)
	if err != nil {
		return nil, err
	}
	r, c := v.info.Rows, v.info.Cols
	if r != 1 && c != 1 {
		return nil, fmt.Errorf("matfile: variable %q is %d×%d, not a vector", name, r, c)
	}
	n := r * c
	out := make([]int, n)
	o, d := v.order, v.data
	for k := range out {
		switch v.dataType {
		case miINT8:
			out[k] = int(int8(d[k]))
		case miUINT8:
			out[k] = int(d[k])
		case miINT16:
			out[k] = int(int16(o.Uint16(d[2*k:])))
		case miUINT16:
			out[k] = int(o.Uint16(d[2*k:]))
		case miINT32:
			out[k] = int(int32(o.Uint32(d[4*k:])))
		case miUINT32:
			out[k] = int(o.Uint32(d[4*k:]))
		case miINT64:
			out[k] = int(int64(o.Uint64(d[8*k:])))
		case miUINT64:
			u := o.Uint64(d[8*k:])
			if u > math.MaxInt64 {
				return nil, fmt.Errorf("matfile: variable %q: element %d (%d) overflows int", name, k, u)
			}
			out[k] = int(u)
		default:
			var x [1]float64
			v.decode(x[:], k)
			i, ok := floatToInt(x[0])
			if !ok {
				return nil, fmt.Errorf("matfile: variable %q: element %d (%v) is not an integer", name, k, x[0])
			}
			out[k] = i
		}
	}
	return out, nil
}

// floatToInt returns x as an int if it is a whole number in the range
// where float64 represents every integer exactly.
func floatToInt(x float64) (int, bool) {
	const limit = 1 << 53
	if x != math.Trunc(x) || x > limit || x < -limit {
		return 0, false // also NaN and ±Inf
	}
	return int(x), true
}

// names returns the variable names in sorted order.
func (f *File) names() []string {
	s := make([]string, 0, len(f.vars))
	for _, v := range f.vars {
		s = append(s, v.info.Name)
	}
	sort.Strings(s)
	return s
}
