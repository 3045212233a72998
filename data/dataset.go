package data

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/lrsdl/lrsdl/matfile"
	"github.com/lrsdl/lrsdl/split"
)

// Dataset is a classification data set.
type Dataset struct {
	Name  string
	Train split.Set
	// Test has a nil Y for a data set loaded from a single data matrix,
	// until it is split, for example by Dataset.Split.
	Test split.Set
	// Classes holds the distinct labels of Train in increasing order; it is
	// nil for unlabelled data.
	Classes []int
	// Notes say how Load chose the variables of the file and why, one
	// line each (the command prints them with -v).
	Notes []string
}

// LoadOptions control Load. The zero value detects everything.
type LoadOptions struct {
	// YVar and LabelVar name the data matrix and the label vector of a
	// file holding all samples in one matrix. Either may be given alone;
	// the other is then detected.
	YVar, LabelVar string
	// YTrainVar, YTestVar, LabelTrainVar and LabelTestVar name the
	// variables of a file that is already split into a training and a
	// test set. Those not given are detected.
	YTrainVar, YTestVar, LabelTrainVar, LabelTestVar string

	// NoLabels loads samples without labels (Labels nil), e.g. to
	// classify new data: a CSV file's last column is then a feature and
	// label variables are neither needed nor read.
	NoLabels bool

	// SamplesAsRows forces the orientation of data matrices: true for one
	// sample per row, false for one per column. When nil, the orientation
	// is detected from which dimension matches the number of labels (a
	// square matrix with labels is an *OptionError asking for it); when
	// there are no labels, MAT-files have samples as columns and NumPy
	// files as rows.
	SamplesAsRows *bool

	// Features, if positive, is the number of features a sample must have
	// (e.g. the dimension of a trained model); it orients data without
	// labels, and a matrix with no dimension of that size is an error.
	Features int

	// Normalize scales every sample to unit ℓ2 norm, as the paper's
	// protocol does for every data set.
	Normalize bool

	// SparseDensity is the density (fraction of non-zero entries) below
	// which Y is stored as a *sparse.CSC. Zero means DefaultSparseDensity;
	// a negative value keeps Y dense.
	SparseDensity float64

	// MaxInflated limits the decompressed size of a compressed file
	// (MAT-file variables, .npz members). Zero means
	// matfile.DefaultMaxInflated.
	MaxInflated int64

	// MaxMemory, if positive, limits the memory in bytes that decoding a
	// data matrix to float64 values may take: a larger one is an error
	// before it is decoded. Zero means no limit.
	MaxMemory int64
}

// checkMemory returns an error if floats float64 values of what exceed
// the limit of MaxMemory.
func (o *LoadOptions) checkMemory(what string, floats float64) error {
	if need := 8 * floats; o.MaxMemory > 0 && need > float64(o.MaxMemory) {
		return fmt.Errorf("%s needs %.4g MB as float64 values, above the memory limit of %.4g MB (LoadOptions.MaxMemory)", what, need/1e6, float64(o.MaxMemory)/1e6)
	}
	return nil
}

func (o *LoadOptions) sparseDensity() float64 {
	if o.SparseDensity == 0 {
		return DefaultSparseDensity
	}
	return o.SparseDensity
}

func (o *LoadOptions) maxInflated() int64 {
	if o.MaxInflated <= 0 {
		return matfile.DefaultMaxInflated
	}
	return o.MaxInflated
}

// An OptionError is a load error that a LoadOptions field can resolve, such
// as an ambiguous or missing variable. Option names the field ("YVar",
// "LabelVar", "YTrainVar", "YTestVar", "LabelTrainVar", "LabelTestVar",
// "NoLabels"), so that a program can name its own flag instead.
type OptionError struct {
	Option string
	Msg    string
}

// Error returns the message and the field that resolves it.
func (e *OptionError) Error() string { return e.Msg + " (set LoadOptions." + e.Option + ")" }

func optionErrorf(option, format string, a ...any) error {
	return &OptionError{Option: option, Msg: fmt.Sprintf(format, a...)}
}

// Load reads a data set from a MAT v5 file (.mat), a NumPy file (.npy or
// .npz) or a CSV file (.csv or gzip-compressed .csv.gz).
//
// A MAT-file or an .npz archive holds named arrays, chosen as follows
// unless the options name them:
//   - A training and a test set, if there is one data matrix (a numeric
//     array with more than one row and column) named like a training set
//     and one named like a test set: names containing "train" or "test",
//     or starting with tr/tt/te before dat, data, ls, label(s), x, y, fea
//     or gnd (Y_train, X_test, tr_dat, tt_dat, trls, ttls, …). Each gets
//     the label vector named like its side whose length matches it.
//   - Otherwise all samples in one matrix, the only data matrix (fea, X,
//     …), with an integer vector whose length matches one of its
//     dimensions (gnd, y, label, …). Test is then empty.
//
// When several integer vectors match, the one whose values look like class
// ids wins: each value repeated and the values consecutive from 0 or 1
// (or −1 and 1), then a label-like name (label, gnd, y, class, …). So
// COIL-100's gnd (1..100) is preferred to its angle (0, 5, …, 355).
// Notes record the choices. An ambiguous or missing variable is an
// *OptionError naming the LoadOptions field that resolves it.
//
// A .npy file holds one array: the samples, unlabelled, so it loads only
// with NoLabels (samples as rows unless SamplesAsRows says otherwise). A
// CSV file has one
// sample per line: the features, then the integer label (no label with
// NoLabels). A first line that is not all numbers is taken as a header.
//
// Labels may be any integers and are kept as they are. Test labels must
// occur in the training labels. Non-finite values are rejected.
func Load(path string, opts LoadOptions) (*Dataset, error) {
	base := filepath.Base(path)
	lower := strings.ToLower(base)
	var (
		ds  *Dataset
		err error
	)
	switch {
	case strings.HasSuffix(lower, ".mat"):
		var f *matfile.File
		if f, err = matfile.Open(path, &matfile.Options{MaxInflated: opts.maxInflated()}); err != nil {
			return nil, err // names the path
		}
		ds, err = datasetFromMAT(f, base[:len(base)-4], &opts)
	case strings.HasSuffix(lower, ".npz"):
		var a *npzArrays
		if a, err = openNPZ(path, &opts); err == nil {
			ds, err = datasetFrom(a, base[:len(base)-4], &opts)
		}
	case strings.HasSuffix(lower, ".npy"):
		ds, err = loadNPY(path, base[:len(base)-4], &opts)
	case strings.HasSuffix(lower, ".csv"):
		ds, err = loadCSV(path, base[:len(base)-4], &opts)
	case strings.HasSuffix(lower, ".csv.gz"):
		ds, err = loadCSV(path, base[:len(base)-7], &opts)
	default:
		return nil, fmt.Errorf("%s: unknown file type: want .mat, .npz, .npy, .csv or .csv.gz", path)
	}
	if err != nil {
		var oe *OptionError
		if errors.As(err, &oe) {
			return nil, &OptionError{Option: oe.Option, Msg: path + ": " + oe.Msg}
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return ds, nil
}

// finish sets the classes of ds from its training labels and checks that
// the test labels are among them.
func (ds *Dataset) finish(lTest string) error {
	if ds.Train.Labels == nil {
		return nil
	}
	ds.Classes, _ = split.ByClass(ds.Train.Labels)
	for i, l := range ds.Test.Labels {
		if _, ok := slices.BinarySearch(ds.Classes, l); !ok {
			return fmt.Errorf("variable %q: label %d (sample %d) is not one of the %d training classes", lTest, l, i, len(ds.Classes))
		}
	}
	return nil
}
