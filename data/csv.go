package data

import (
	"bufio"
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
			return nil, fmt.Errorf("gzip: %w", err)
		}
		defer zr.Close()
		r = &capReader{r: zr, left: opts.maxInflated()}
	}
	ds, err := ReadCSV(r, opts)
	if err != nil {
		return nil, err
	}
	ds.Name = name
	return ds, nil
}

// capReader reads from r and fails once more than left bytes were read.
type capReader struct {
	r    io.Reader
	left int64
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.left < 0 {
		return 0, errors.New("gzip: the file inflates beyond the reader's limit (LoadOptions.MaxInflated)")
	}
	if int64(len(p)) > c.left+1 {
		p = p[:c.left+1]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}

// ReadCSV reads a data set from CSV text with one sample per line: the
// features, then the integer label (no label with opts.NoLabels). A first
// line with no number in any field is skipped as a header (and noted); a
// field that is not a number anywhere else is an error, on the first line
// too. A UTF-8 byte-order mark is skipped. Every line must have
// the same number of fields. A last field that is not an integer is an
// *OptionError for NoLabels, naming the line and column. The options used
// are NoLabels, Features, Normalize and SparseDensity; the
// data set has no test set.
func ReadCSV(r io.Reader, opts *LoadOptions) (*Dataset, error) {
	if opts == nil {
		opts = &LoadOptions{}
	}
	br := bufio.NewReader(r)
	if bom, _ := br.Peek(3); string(bom) == "\uFEFF" {
		br.Discard(3)
	}
	cr := csv.NewReader(br)
	cr.ReuseRecord = true
	cr.TrimLeadingSpace = true
	cr.Comment = '#'
	var (
		feats  []float64 // row-major N×d
		labels []int
		d      = -1
		n      int    // samples
		header string // note on a skipped header
	)
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) && errors.Is(pe.Err, csv.ErrFieldCount) {
				return nil, fmt.Errorf("line %d: %d fields, the first line has %d", pe.Line, len(rec), cr.FieldsPerRecord)
			}
			return nil, fmt.Errorf("csv: %w", err)
		}
		line, _ := cr.FieldPos(0)
		if d < 0 {
			d = len(rec)
			if !opts.NoLabels {
				if len(rec) < 2 {
					return nil, optionErrorf("NoLabels", "line %d: 1 field, want features and a label", line)
				}
				d--
			}
			if noNumbers(rec) {
				header = fmt.Sprintf("line %d skipped as a header: %s", line, strings.Join(rec, ","))
				continue
			}
		}
		for k, field := range rec[:d] {
			x, err := strconv.ParseFloat(strings.TrimSpace(field), 64)
			if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, fmt.Errorf("line %d, field %d: %q is not a finite number", line, k+1, field)
			}
			feats = append(feats, x)
		}
		n++
		if opts.NoLabels {
			continue
		}
		field := strings.TrimSpace(rec[d])
		l, err := strconv.Atoi(field)
		if err != nil {
			x, ferr := strconv.ParseFloat(field, 64)
			var ok bool
			if l, ok = floatToInt(x); ferr != nil || !ok {
				return nil, optionErrorf("NoLabels", "line %d, column %d: %q is not an integer label (the last column holds the labels unless the file has none)", line, d+1, rec[d])
			}
		}
		labels = append(labels, l)
	}
	if n == 0 {
		return nil, errors.New("no samples")
	}
	if opts.Features > 0 && d != opts.Features {
		return nil, fmt.Errorf("%d features per sample, not the %d expected", d, opts.Features)
	}
	if classes, _ := split.ByClass(labels); n >= 10 && 2*len(classes) > n {
		return nil, optionErrorf("NoLabels", "column %d does not look like labels: %d distinct values for %d samples", d+1, len(classes), n)
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
	ds := &Dataset{Train: split.Set{Y: ym, Labels: labels}}
	if header != "" {
		ds.Notes = append(ds.Notes, header)
	}
	return ds, ds.finish("")
}

// noNumbers reports whether no field of rec is a number.
func noNumbers(rec []string) bool {
	for _, f := range rec {
		if _, err := strconv.ParseFloat(strings.TrimSpace(f), 64); err == nil {
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
