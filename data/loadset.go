package data

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl/split"
)

// loadSet reads the data matrix yName and the labels lName (none if
// empty). asRows forces the orientation when not nil; the orientation used
// is returned.
func loadSet(a arrays, yName, lName string, asRows *bool, opts *LoadOptions) (split.Set, bool, error) {
	var labels []int
	if lName != "" {
		var err error
		if labels, err = a.ints(lName); err != nil {
			return split.Set{}, false, fmt.Errorf("label variable: %w", err)
		}
	}
	nz, bad, err := a.scan(yName)
	if err != nil {
		return split.Set{}, false, err
	}
	var rows, cols int
	for _, v := range a.infos() {
		if v.name == yName {
			rows, cols = v.rows, v.cols
		}
	}
	n := len(labels)
	var byRows bool
	switch {
	case asRows != nil:
		byRows = *asRows
		if lName != "" && (byRows && rows != n || !byRows && cols != n) {
			what := "columns"
			if byRows {
				what = "rows"
			}
			return split.Set{}, false, fmt.Errorf("variable %q is %d×%d with samples as %s, but label variable %q has %d labels",
				yName, rows, cols, what, lName, n)
		}
	case lName == "" && opts.Features > 0 && rows != cols && (rows == opts.Features || cols == opts.Features):
		byRows = cols == opts.Features
	case lName == "":
		byRows = a.rowsFirst()
	case cols == n && rows == n:
		return split.Set{}, false, optionErrorf("SamplesAsRows", "variable %q is %d×%d and label variable %q has %d labels: its samples could be its rows or its columns", yName, rows, cols, lName, n)
	case cols == n:
	case rows == n:
		byRows = true
	default:
		return split.Set{}, false, fmt.Errorf("variable %q is %d×%d, but label variable %q has %d labels: neither dimension matches",
			yName, rows, cols, lName, n)
	}
	if opts.Features > 0 && (byRows && cols != opts.Features || !byRows && rows != opts.Features) {
		what := "columns"
		if byRows {
			what = "rows"
		}
		return split.Set{}, false, fmt.Errorf("variable %q is %d×%d with samples as %s, not samples of the %d features expected", yName, rows, cols, what, opts.Features)
	}
	if bad >= 0 {
		return split.Set{}, false, fmt.Errorf("variable %q: element (%d, %d) is not finite", yName, bad%rows, bad/rows)
	}
	var y mat.Matrix
	if float64(nz) < opts.sparseDensity()*float64(rows)*float64(cols) {
		// Values and row indices, twice when transposed.
		if err := opts.checkMemory(fmt.Sprintf("variable %q (%d×%d, %d non-zero)", yName, rows, cols, nz), 4*float64(nz)+2*float64(cols+rows)); err != nil {
			return split.Set{}, false, err
		}
		s, err := a.csc(yName)
		if err != nil {
			return split.Set{}, false, err
		}
		if byRows {
			s = transposeCSC(s)
		}
		y = s
	} else {
		// The matrix, twice when transposed.
		if err := opts.checkMemory(fmt.Sprintf("variable %q (%d×%d)", yName, rows, cols), 2*float64(rows)*float64(cols)); err != nil {
			return split.Set{}, false, err
		}
		d, err := a.dense(yName)
		if err != nil {
			return split.Set{}, false, err
		}
		if byRows {
			d = mat.DenseCopyOf(d.T())
		}
		y = d
	}
	if opts.Normalize {
		y = normalizeInPlace(y)
	}
	return split.Set{Y: y, Labels: labels}, byRows, nil
}
