package data

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl/matfile"
	"github.com/lrsdl/lrsdl/split"
)

// Set is a labelled set of samples.
type Set struct {
	// Y holds one sample per column (d×N): a *mat.Dense or, for sparse
	// data, a *sparse.CSC.
	Y mat.Matrix
	// Labels holds the class index 0..C−1 of each column of Y.
	Labels []int
}

// Len returns the number of samples in s.
func (s *Set) Len() int { return len(s.Labels) }

// Dataset is a classification data set.
type Dataset struct {
	Name  string
	Train split.Set
	// Test has a nil Y for a data set loaded from a single data matrix,
	// until it is split, for example by Dataset.Split.
	Test split.Set
	// Classes holds the distinct labels of Train in increasing order.
	Classes []int
}

// LoadOptions control Load. The zero value detects everything.
type LoadOptions struct {
	// YVar and LabelVar name the data matrix and the label vector of a
	// MAT-file holding all samples in one matrix. Either may be given
	// alone; the other is then detected.
	YVar, LabelVar string
	// YTrainVar, YTestVar, LabelTrainVar and LabelTestVar name the
	// variables of a MAT-file that is already split. If one is given, all
	// four must be.
	YTrainVar, YTestVar, LabelTrainVar, LabelTestVar string

	// SamplesAsRows forces the orientation of MAT-file data matrices:
	// true for one sample per row, false for one per column. When nil,
	// the orientation is detected from which dimension matches the
	// number of labels, preferring columns when both do.
	SamplesAsRows *bool

	// Normalize scales every sample to unit ℓ2 norm.
	Normalize bool

	// SparseDensity is the density (fraction of non-zero entries) below
	// which Y is stored as a *sparse.CSC. Zero means DefaultSparseDensity;
	// a negative value keeps Y dense.
	SparseDensity float64
}

func (o *LoadOptions) sparseDensity() float64 {
	if o.SparseDensity == 0 {
		return DefaultSparseDensity
	}
	return o.SparseDensity
}

// Load reads a data set from a MAT v5 file (.mat) or a CSV file (.csv or
// gzip-compressed .csv.gz).
//
// A MAT-file holds either a training and a test set (variables named as
// in the options, or detected as the two non-vector numeric matrices whose
// names contain "train" and "test" and the integer vectors named likewise,
// such as Y_train, Y_test, label_train, label_test), or all samples in one
// matrix with one label vector (detected as the only non-vector numeric
// matrix and the integer-valued vector whose length matches one of its
// dimensions). In that case Test is nil.
//
// A CSV file has one sample per line: the features, then the integer
// label. A first line that is not all numbers is taken as a header.
//
// Labels may be any integers and are kept as they are. Test labels must
// occur in the training labels. Non-finite values are rejected.
func Load(path string, opts LoadOptions) (*Dataset, error) {
	base := filepath.Base(path)
	lower := strings.ToLower(base)
	switch {
	case strings.HasSuffix(lower, ".mat"):
		return loadMAT(path, strings.TrimSuffix(base, base[len(base)-4:]), &opts)
	case strings.HasSuffix(lower, ".csv"):
		return loadCSV(path, base[:len(base)-4], &opts)
	case strings.HasSuffix(lower, ".csv.gz"):
		return loadCSV(path, base[:len(base)-7], &opts)
	}
	return nil, fmt.Errorf("%s: unknown file type: want .mat, .csv or .csv.gz", path)
}

func loadMAT(path, name string, opts *LoadOptions) (*Dataset, error) {
	f, err := matfile.Open(path, nil)
	if err != nil {
		return nil, err
	}
	ds, err := datasetFromMAT(f, name, opts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return ds, nil
}

func datasetFromMAT(f *matfile.File, name string, opts *LoadOptions) (*Dataset, error) {
	pair := opts.YTrainVar != "" || opts.YTestVar != "" || opts.LabelTrainVar != "" || opts.LabelTestVar != ""
	whole := opts.YVar != "" || opts.LabelVar != ""
	var yTrain, lTrain, yTest, lTest string
	switch {
	case pair && whole:
		return nil, fmt.Errorf("options name variables of both layouts (YVar/LabelVar and YTrainVar/YTestVar/LabelTrainVar/LabelTestVar)")
	case pair:
		if opts.YTrainVar == "" || opts.YTestVar == "" || opts.LabelTrainVar == "" || opts.LabelTestVar == "" {
			return nil, fmt.Errorf("options name some but not all of YTrainVar, YTestVar, LabelTrainVar, LabelTestVar")
		}
		yTrain, yTest, lTrain, lTest = opts.YTrainVar, opts.YTestVar, opts.LabelTrainVar, opts.LabelTestVar
	case whole:
		var err error
		if yTrain, lTrain, err = detectWhole(f, opts.YVar, opts.LabelVar); err != nil {
			return nil, err
		}
	default:
		var err error
		yTrain, yTest, lTrain, lTest, pair, err = detect(f)
		if err != nil {
			return nil, err
		}
	}

	ds := &Dataset{Name: name}
	train, asRows, err := loadSet(f, yTrain, lTrain, opts.SamplesAsRows, opts)
	if err != nil {
		return nil, err
	}
	var test *matSet
	if pair {
		// The test set has the orientation of the training set.
		test, _, err = loadSet(f, yTest, lTest, &asRows, opts)
		if err != nil {
			return nil, err
		}
		dTrain, _ := train.y.Dims()
		if dTest, _ := test.y.Dims(); dTrain != dTest {
			return nil, fmt.Errorf("%q has %d features per sample but %q has %d", yTrain, dTrain, yTest, dTest)
		}
	}
	ds.Train = split.Set{Y: train.y, Labels: train.labels}
	ds.Classes, _ = split.ByClass(train.labels)
	if test != nil {
		if err := knownLabels(ds.Classes, test.labels); err != nil {
			return nil, fmt.Errorf("variable %q: %w", lTest, err)
		}
		ds.Test = split.Set{Y: test.y, Labels: test.labels}
	}
	return ds, nil
}

type matSet struct {
	y      mat.Matrix
	labels []int
}

// loadSet reads the data matrix yName and the labels lName. asRows forces
// the orientation when not nil; the orientation used is returned.
func loadSet(f *matfile.File, yName, lName string, asRows *bool, opts *LoadOptions) (*matSet, bool, error) {
	labels, err := f.Ints(lName)
	if err != nil {
		return nil, false, fmt.Errorf("label variable: %w", err)
	}
	nz, bad, err := f.Scan(yName)
	if err != nil {
		return nil, false, err
	}
	v, _ := f.Var(yName)
	rows, cols := v.Rows, v.Cols
	n := len(labels)
	var byRows bool
	switch {
	case asRows != nil:
		byRows = *asRows
		if byRows && rows != n || !byRows && cols != n {
			what := "columns"
			if byRows {
				what = "rows"
			}
			return nil, false, fmt.Errorf("variable %q is %d×%d with samples as %s, but label variable %q has %d labels",
				yName, rows, cols, what, lName, n)
		}
	case cols == n:
	case rows == n:
		byRows = true
	default:
		return nil, false, fmt.Errorf("variable %q is %d×%d, but label variable %q has %d labels: neither dimension matches",
			yName, rows, cols, lName, n)
	}
	if bad >= 0 {
		return nil, false, fmt.Errorf("variable %q: element (%d, %d) is not finite", yName, bad%rows, bad/rows)
	}
	var y mat.Matrix
	if float64(nz) < opts.sparseDensity()*float64(rows)*float64(cols) {
		s, err := f.CSC(yName)
		if err != nil {
			return nil, false, err
		}
		if byRows {
			s = transposeCSC(s)
		}
		y = s
	} else {
		d, err := f.Dense(yName)
		if err != nil {
			return nil, false, err
		}
		if byRows {
			d = mat.DenseCopyOf(d.T())
		}
		y = d
	}
	if opts.Normalize {
		y = normalizeInPlace(y)
	}
	return &matSet{y: y, labels: labels}, byRows, nil
}

// matrixVars returns the names of the variables that can be data
// matrices: real numeric arrays with more than one row and column.
func matrixVars(f *matfile.File) []string {
	var s []string
	for _, v := range f.Vars() {
		if v.Supported && v.Rows > 1 && v.Cols > 1 {
			s = append(s, v.Name)
		}
	}
	return s
}

// labelVars returns the names of the variables that can be label vectors:
// non-empty real vectors of whole numbers.
func labelVars(f *matfile.File) []string {
	var s []string
	for _, v := range f.Vars() {
		if v.Supported && (v.Rows == 1 || v.Cols == 1) && v.Rows*v.Cols > 0 {
			if _, err := f.Ints(v.Name); err == nil {
				s = append(s, v.Name)
			}
		}
	}
	return s
}

// matches reports whether the label vector l has as many entries as one
// of the dimensions of the matrix y.
func matches(f *matfile.File, y, l string) bool {
	vy, _ := f.Var(y)
	vl, _ := f.Var(l)
	n := vl.Rows * vl.Cols
	return vy.Rows == n || vy.Cols == n
}

// varNames returns the names of the variables of f in sorted order.
func varNames(f *matfile.File) []string {
	var s []string
	for _, v := range f.Vars() {
		s = append(s, v.Name)
	}
	slices.Sort(s)
	return s
}

// detect finds the variables of a MAT-file in either layout.
func detect(f *matfile.File) (yTrain, yTest, lTrain, lTest string, split bool, err error) {
	ms, ls := matrixVars(f), labelVars(f)
	if len(ms) == 0 {
		return "", "", "", "", false, fmt.Errorf("no numeric data matrix found (variables: %s)", strings.Join(varNames(f), ", "))
	}
	mTrain, mTest := containing(ms, "train"), containing(ms, "test")
	if len(mTrain) == 1 && len(mTest) == 1 {
		lTrains, lTests := containing(ls, "train"), containing(ls, "test")
		lTrains = slices.DeleteFunc(lTrains, func(l string) bool { return !matches(f, mTrain[0], l) })
		lTests = slices.DeleteFunc(lTests, func(l string) bool { return !matches(f, mTest[0], l) })
		if len(lTrains) != 1 || len(lTests) != 1 {
			return "", "", "", "", false, fmt.Errorf("found data matrices %q and %q but not exactly one training and one test label vector of matching length (candidates: %s); set the label variable options",
				mTrain[0], mTest[0], strings.Join(ls, ", "))
		}
		return mTrain[0], mTest[0], lTrains[0], lTests[0], true, nil
	}
	if len(ms) > 1 {
		return "", "", "", "", false, fmt.Errorf("several data matrices (%s) and no train/test pair; set LoadOptions.YVar", strings.Join(ms, ", "))
	}
	y, l, err := detectWhole(f, ms[0], "")
	return y, "", l, "", false, err
}

// detectWhole completes the names of a data matrix and its label vector,
// either of which may be empty.
func detectWhole(f *matfile.File, y, l string) (string, string, error) {
	for _, name := range []string{y, l} {
		if _, ok := f.Var(name); name != "" && !ok {
			return "", "", fmt.Errorf("no variable %q (the file has: %s)", name, strings.Join(varNames(f), ", "))
		}
	}
	switch {
	case y != "" && l != "":
		return y, l, nil
	case y != "":
		c := slices.DeleteFunc(labelVars(f), func(l string) bool { return l == y || !matches(f, y, l) })
		if len(c) != 1 {
			return "", "", fmt.Errorf("want one integer label vector matching a dimension of %q, found %d (%s); set LoadOptions.LabelVar",
				y, len(c), strings.Join(c, ", "))
		}
		return y, c[0], nil
	case l != "":
		c := slices.DeleteFunc(matrixVars(f), func(y string) bool { return y == l || !matches(f, y, l) })
		if len(c) != 1 {
			return "", "", fmt.Errorf("want one data matrix with a dimension matching the length of %q, found %d (%s); set LoadOptions.YVar",
				l, len(c), strings.Join(c, ", "))
		}
		return c[0], l, nil
	}
	return "", "", fmt.Errorf("no variable names given")
}

// containing returns the names that contain sub, ignoring case.
func containing(names []string, sub string) []string {
	var s []string
	for _, n := range names {
		if strings.Contains(strings.ToLower(n), sub) {
			s = append(s, n)
		}
	}
	return s
}

// knownLabels returns an error if a label is not in classes, which is sorted.
func knownLabels(classes, labels []int) error {
	for i, l := range labels {
		if _, ok := slices.BinarySearch(classes, l); !ok {
			return fmt.Errorf("label %d (sample %d) is not one of the %d training classes", l, i, len(classes))
		}
	}
	return nil
}
