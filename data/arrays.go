package data

import (
	"fmt"
	"slices"
	"strings"

	"github.com/james-bowman/sparse"
	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl/matfile"
	"github.com/lrsdl/lrsdl/split"
)

// arrays is a file of named numeric arrays: a MAT-file or an .npz archive.
type arrays interface {
	infos() []arrayInfo // in file order
	ints(name string) ([]int, error)
	// scan returns the number of non-zero entries and the column-major
	// index of the first non-finite one, or −1.
	scan(name string) (nnz, bad int, err error)
	dense(name string) (*mat.Dense, error)
	csc(name string) (*sparse.CSC, error)
	// rowsFirst reports the orientation to assume when the labels do not
	// decide it: samples as rows (NumPy) or as columns (MATLAB).
	rowsFirst() bool
}

type arrayInfo struct {
	name       string
	rows, cols int
	ok         bool   // a real numeric 2-D array
	why        string // why not, when not ok
}

// matArrays are the variables of a MAT-file.
type matArrays struct{ f *matfile.File }

func (m matArrays) infos() []arrayInfo {
	var s []arrayInfo
	for _, v := range m.f.Vars() {
		s = append(s, arrayInfo{v.Name, v.Rows, v.Cols, v.Supported, v.Unsupported})
	}
	return s
}
func (m matArrays) ints(name string) ([]int, error)       { return m.f.Ints(name) }
func (m matArrays) scan(name string) (int, int, error)    { return m.f.Scan(name) }
func (m matArrays) dense(name string) (*mat.Dense, error) { return m.f.Dense(name) }
func (m matArrays) csc(name string) (*sparse.CSC, error)  { return m.f.CSC(name) }
func (m matArrays) rowsFirst() bool                       { return false }
func datasetFromMAT(f *matfile.File, name string, opts *LoadOptions) (*Dataset, error) {
	return datasetFrom(matArrays{f}, name, opts)
}

// Sides of a variable name.
const (
	noSide = iota
	trainSide
	testSide
)

var sideWords = []string{"", "dat", "data", "ls", "label", "labels", "lbl", "x", "y", "fea", "gnd"}

// side tells whether a variable name looks like part of a training or a
// test set: it contains "train" or "test", or it is tr, tt or te followed
// by one of sideWords (tr_dat, ttls, te_x, …).
func side(name string) int {
	n := strings.ToLower(name)
	switch {
	case strings.Contains(n, "train"):
		return trainSide
	case strings.Contains(n, "test"):
		return testSide
	}
	for _, p := range []struct {
		prefix string
		side   int
	}{{"tr", trainSide}, {"tt", testSide}, {"te", testSide}} {
		if rest, ok := strings.CutPrefix(n, p.prefix); ok && slices.Contains(sideWords, strings.TrimLeft(rest, "_")) {
			return p.side
		}
	}
	return noSide
}

var sideNames = [...]string{"", "training", "test"}

// labelName reports whether a variable name reads like a label vector;
// strongly if it cannot be read otherwise (label, gnd, …, but not y).
func labelName(name string) (named, strongly bool) {
	n := strings.ToLower(name)
	for _, w := range []string{"label", "gnd", "class", "target", "lbl"} {
		if strings.Contains(n, w) {
			return true, true
		}
	}
	n = strings.NewReplacer("train", "", "test", "", "_", "").Replace(n)
	return slices.Contains([]string{"y", "ls", "trls", "ttls", "tels", "cls"}, n), false
}

// detector chooses the variables of a file of arrays.
type detector struct {
	a     arrays
	info  map[string]arrayInfo
	names []string // sorted, for messages
	notes []string
}

func newDetector(a arrays) *detector {
	d := &detector{a: a, info: map[string]arrayInfo{}}
	for _, v := range a.infos() {
		d.info[v.name] = v
		d.names = append(d.names, v.name)
	}
	slices.Sort(d.names)
	return d
}

func (d *detector) notef(format string, a ...any) {
	d.notes = append(d.notes, fmt.Sprintf(format, a...))
}

// matrices returns the names of the arrays that can be data matrices, in
// file order: real numeric arrays with more than one row and column.
func (d *detector) matrices(sd int) []string {
	var s []string
	for _, v := range d.a.infos() {
		if v.ok && v.rows > 1 && v.cols > 1 && (sd == noSide || side(v.name) == sd) {
			s = append(s, v.name)
		}
	}
	return s
}

// skipped says why each array of the file is not a data matrix.
func (d *detector) skipped() string {
	var s []string
	for _, v := range d.a.infos() {
		switch {
		case !v.ok && v.why != "":
			s = append(s, v.why)
		case !v.ok:
			s = append(s, fmt.Sprintf("%q cannot be read as a real 2-D array", v.name))
		default:
			s = append(s, fmt.Sprintf("%q is a %d×%d vector", v.name, v.rows, v.cols))
		}
	}
	return strings.Join(s, "; ")
}

// vectorData returns the vector that holds samples of dimension 1 in a
// file without a data matrix: among the real vectors of more than one
// entry that have the length of another vector (of the label vector l if
// given), the only one, or the only one not named strongly like labels,
// or the only one not named like labels at all.
func (d *detector) vectorData(l string) (string, bool) {
	var c []string
	for _, v := range d.a.infos() {
		if !v.ok || v.rows != 1 && v.cols != 1 || v.rows*v.cols < 2 || v.name == l {
			continue
		}
		for _, w := range d.a.infos() {
			if w.name != v.name && w.ok && (w.rows == 1 || w.cols == 1) && w.rows*w.cols == v.rows*v.cols && (l == "" || w.name == l) {
				c = append(c, v.name)
				break
			}
		}
	}
	if len(c) > 1 {
		c = slices.DeleteFunc(c, func(n string) bool { _, strongly := labelName(n); return strongly })
	}
	if len(c) > 1 {
		c = slices.DeleteFunc(c, func(n string) bool { named, _ := labelName(n); return named })
	}
	if len(c) != 1 {
		return "", false
	}
	return c[0], true
}

// matches reports whether l has as many entries as a dimension of y.
func (d *detector) matches(y, l string) bool {
	vy, vl := d.info[y], d.info[l]
	n := vl.rows * vl.cols
	return vy.rows == n || vy.cols == n
}

// exists checks that the variables named by the options are in the file.
func (d *detector) exists(opts *LoadOptions) error {
	for _, c := range []struct{ option, name string }{
		{"YVar", opts.YVar}, {"LabelVar", opts.LabelVar},
		{"YTrainVar", opts.YTrainVar}, {"YTestVar", opts.YTestVar},
		{"LabelTrainVar", opts.LabelTrainVar}, {"LabelTestVar", opts.LabelTestVar},
	} {
		if _, ok := d.info[c.name]; c.name != "" && !ok {
			return optionErrorf(c.option, "no variable %q (the file has: %s)", c.name, strings.Join(d.names, ", "))
		}
	}
	return nil
}

// datasetFrom chooses the variables of a and loads them.
func datasetFrom(a arrays, name string, opts *LoadOptions) (*Dataset, error) {
	d := newDetector(a)
	if err := d.exists(opts); err != nil {
		return nil, err
	}
	pair := opts.YTrainVar != "" || opts.YTestVar != "" || opts.LabelTrainVar != "" || opts.LabelTestVar != ""
	whole := opts.YVar != "" || opts.LabelVar != ""
	if pair && whole {
		return nil, fmt.Errorf("options name variables of both layouts (YVar/LabelVar and YTrainVar/YTestVar/LabelTrainVar/LabelTestVar)")
	}
	if !pair && !whole {
		if len(d.matrices(trainSide)) == 1 && len(d.matrices(testSide)) == 1 {
			pair = true
		} else if _, ok := d.vectorData(""); len(d.matrices(noSide)) == 0 && (!ok || opts.NoLabels) {
			return nil, fmt.Errorf("no numeric data matrix found: %s", d.skipped())
		}
	}
	ds := &Dataset{Name: name}
	var lTest string
	if pair {
		yTr, err := d.matrix(opts.YTrainVar, trainSide, "YTrainVar")
		if err != nil {
			return nil, err
		}
		yTe, err := d.matrix(opts.YTestVar, testSide, "YTestVar")
		if err != nil {
			return nil, err
		}
		var lTr string
		if !opts.NoLabels {
			if lTr, err = d.label(yTr, opts.LabelTrainVar, trainSide, "LabelTrainVar"); err != nil {
				return nil, err
			}
			if lTest, err = d.label(yTe, opts.LabelTestVar, testSide, "LabelTestVar"); err != nil {
				return nil, err
			}
		}
		var asRows bool
		if ds.Train, asRows, err = loadSet(a, yTr, lTr, opts.SamplesAsRows, opts); err != nil {
			return nil, err
		}
		// The test set has the orientation of the training set.
		if ds.Test, _, err = loadSet(a, yTe, lTest, &asRows, opts); err != nil {
			return nil, err
		}
		dTr, _ := ds.Train.Y.Dims()
		if dTe, _ := ds.Test.Y.Dims(); dTr != dTe {
			return nil, fmt.Errorf("%q has %d features per sample but %q has %d", yTr, dTr, yTe, dTe)
		}
		d.notef("training set %q, test set %q", yTr, yTe)
	} else {
		y, l, err := d.whole(opts)
		if err != nil {
			return nil, err
		}
		if ds.Train, _, err = loadSet(a, y, l, opts.SamplesAsRows, opts); err != nil {
			return nil, err
		}
		d.notef("samples %q, one set (no test set in the file)", y)
	}
	if opts.NoLabels {
		d.notef("no labels (NoLabels)")
	}
	if err := ds.finish(lTest); err != nil {
		return nil, err
	}
	ds.Notes = d.notes
	return ds, nil
}

// matrix returns the data matrix named, or the only one of a side.
func (d *detector) matrix(given string, sd int, option string) (string, error) {
	if given != "" {
		return given, nil
	}
	c := d.matrices(sd)
	if len(c) != 1 {
		return "", optionErrorf(option, "want one %s data matrix, found %d (%s)", sideNames[sd], len(c), strings.Join(c, ", "))
	}
	return c[0], nil
}

// whole returns the data matrix and label vector of a file holding all
// samples in one matrix.
func (d *detector) whole(opts *LoadOptions) (y, l string, err error) {
	y, l = opts.YVar, opts.LabelVar
	if opts.NoLabels {
		l = ""
	}
	if y == "" {
		c := d.matrices(noSide)
		if l != "" {
			c = slices.DeleteFunc(c, func(y string) bool { return y == l || !d.matches(y, l) })
		}
		if v, ok := d.vectorData(l); len(c) == 0 && ok && !opts.NoLabels {
			d.notef("samples of dimension 1 in the vector %q (the file has no data matrix)", v)
			c = []string{v}
		}
		if len(c) == 0 {
			return "", "", optionErrorf("YVar", "no data matrix found: %s", d.skipped())
		}
		if len(c) != 1 {
			what := "no train/test pair"
			if l != "" {
				what = fmt.Sprintf("a dimension matching the length of %q", l)
			}
			return "", "", optionErrorf("YVar", "want one data matrix with %s, found %d (%s)", what, len(c), strings.Join(c, ", "))
		}
		y = c[0]
	}
	if l == "" && !opts.NoLabels {
		if l, err = d.label(y, "", noSide, "LabelVar"); err != nil {
			return "", "", err
		}
	}
	return y, l, nil
}

// label returns the label vector of the data matrix y: the one given, or
// the integer vector of matching length that looks most like class ids,
// preferring names of side sd and excluding those of the other side.
func (d *detector) label(y, given string, sd int, option string) (string, error) {
	if given != "" {
		return given, nil
	}
	type cand struct {
		name   string
		ids    bool // each value repeated, consecutive from 0 or 1 (or ±1)
		named  bool // a label-like name
		values string
	}
	var cs []cand
	for _, v := range d.a.infos() {
		if v.name == y || !v.ok || v.rows != 1 && v.cols != 1 || v.rows*v.cols == 0 || !d.matches(y, v.name) {
			continue
		}
		if s := side(v.name); sd != noSide && s != noSide && s != sd {
			continue
		}
		l, err := d.a.ints(v.name)
		if err != nil {
			continue
		}
		ids, values := classIDs(l)
		named, _ := labelName(v.name)
		cs = append(cs, cand{v.name, ids, named, values})
	}
	if sd != noSide {
		// Prefer the vectors named like the side.
		if same := slices.DeleteFunc(slices.Clone(cs), func(c cand) bool { return side(c.name) != sd }); len(same) > 0 {
			cs = same
		}
	}
	vy := d.info[y]
	switch len(cs) {
	case 0:
		n := fmt.Sprint(vy.rows)
		if vy.cols != vy.rows {
			n += " or " + fmt.Sprint(vy.cols)
		}
		return "", optionErrorf(option, "no integer label vector with %s entries for %q (the file has: %s); name one, or set NoLabels to load the samples without labels",
			n, y, strings.Join(d.names, ", "))
	case 1:
		d.notef("labels of %q: %q, %s, the only integer vector of matching length", y, cs[0].name, cs[0].values)
		return cs[0].name, nil
	}
	score := func(c cand) int {
		s := 0
		if c.ids {
			s += 2
		}
		if c.named {
			s++
		}
		return s
	}
	slices.SortStableFunc(cs, func(a, b cand) int { return score(b) - score(a) })
	var names []string
	for _, c := range cs {
		names = append(names, fmt.Sprintf("%q (%s)", c.name, c.values))
	}
	if score(cs[0]) == score(cs[1]) {
		return "", optionErrorf(option, "several integer vectors could label %q: %s", y, strings.Join(names, ", "))
	}
	why := "values look like class ids"
	if cs[0].ids == cs[1].ids {
		why = "name reads like labels"
	}
	d.notef("labels of %q: %s, whose %s, rather than %s", y, names[0], why, strings.Join(names[1:], ", "))
	return cs[0].name, nil
}

// classIDs reports whether labels look like class ids: every value occurs
// at least twice and the values are consecutive integers from 0 or 1, or
// are −1 and 1. values describes them.
func classIDs(labels []int) (ok bool, values string) {
	classes, idx := split.ByClass(labels)
	least := len(labels)
	for _, ix := range idx {
		least = min(least, len(ix))
	}
	lo, hi := classes[0], classes[len(classes)-1]
	consecutive := (lo == 0 || lo == 1) && hi-lo+1 == len(classes) || slices.Equal(classes, []int{-1, 1})
	values = fmt.Sprintf("%d values %d..%d", len(classes), lo, hi)
	if !consecutive {
		values += ", not consecutive from 0 or 1"
	}
	values += fmt.Sprintf(", each at least %d times", least)
	return consecutive && least >= 2, values
}
