package data

import (
	"compress/gzip"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl/split"
)

func loadCSV(path, name string, opts *LoadOptions) (*Dataset, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(strings.ToLower(path), ".gz") {
		zr, err := gzip.NewReader(f)
		if err != nil {
			return nil, fmt.Errorf("%s: gzip: %w", path, err)
		}
		defer zr.Close()
		r = zr
	}
	ds, err := ReadCSV(r, opts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	ds.Name = name
	return ds, nil
}

// ReadCSV reads a data set from CSV text with one sample per line: the
// features, then the integer label. A first line that is not all numbers
// is skipped as a header. Every line must have the same number of fields,
// at least two. The options used are Normalize and SparseDensity; the
// data set has no test set.
func ReadCSV(r io.Reader, opts *LoadOptions) (*Dataset, error) {
	if opts == nil {
		opts = &LoadOptions{}
	}
	cr := csv.NewReader(r)
	cr.ReuseRecord = true
	cr.TrimLeadingSpace = true
	cr.Comment = '#'
	var (
		feats  []float64 // row-major N×d
		labels []int
		d      = -1
	)
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) && errors.Is(pe.Err, csv.ErrFieldCount) {
				return nil, fmt.Errorf("line %d: %d fields, the first line has %d", pe.Line, len(rec), d+1)
			}
			return nil, fmt.Errorf("csv: %w", err)
		}
		line, _ := cr.FieldPos(0)
		if d < 0 {
			if len(rec) < 2 {
				return nil, fmt.Errorf("line %d: %d field, want features and a label", line, len(rec))
			}
			d = len(rec) - 1
			if !allNumbers(rec) {
				continue // header
			}
		}
		for k, field := range rec[:d] {
			x, err := strconv.ParseFloat(strings.TrimSpace(field), 64)
			if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, fmt.Errorf("line %d, field %d: %q is not a finite number", line, k+1, field)
			}
			feats = append(feats, x)
		}
		field := strings.TrimSpace(rec[d])
		l, err := strconv.Atoi(field)
		if err != nil {
			x, ferr := strconv.ParseFloat(field, 64)
			var ok bool
			if l, ok = floatToInt(x); ferr != nil || !ok {
				return nil, fmt.Errorf("line %d, field %d: label %q is not an integer", line, d+1, rec[d])
			}
		}
		labels = append(labels, l)
	}
	n := len(labels)
	if n == 0 {
		return nil, errors.New("no samples")
	}
	// Samples become the columns of Y.
	y := mat.NewDense(d, n, nil)
	raw := y.RawMatrix()
	for j := 0; j < n; j++ {
		for i, x := range feats[j*d : (j+1)*d] {
			raw.Data[i*raw.Stride+j] = x
		}
	}
	var ym mat.Matrix = y
	if density := opts.sparseDensity(); density > 0 {
		ym = Store(y, density)
	}
	if opts.Normalize {
		ym = normalizeInPlace(ym)
	}
	classes, _ := split.ByClass(labels)
	return &Dataset{Train: split.Set{Y: ym, Labels: labels}, Classes: classes}, nil
}

func allNumbers(rec []string) bool {
	for _, f := range rec {
		if _, err := strconv.ParseFloat(strings.TrimSpace(f), 64); err != nil {
			return false
		}
	}
	return true
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
