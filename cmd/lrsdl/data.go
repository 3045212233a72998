package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl/data"
	"github.com/lrsdl/lrsdl/methods"
	"github.com/lrsdl/lrsdl/split"
)

// dataFlags are the flags shared by all commands that read data.
type dataFlags struct {
	path                                           string
	yVar, labelVar                                 string
	trainVar, testVar, trainLabelVar, testLabelVar string
	asRows, normalize, noLabels                    bool
	fs                                             *flag.FlagSet
}

// register adds the data flags to fs; -normalize only if withNormalize
// (predict takes the choice from the model), -no-labels only if
// withNoLabels.
func (d *dataFlags) register(fs *flag.FlagSet, required, withNormalize, withNoLabels bool) {
	d.fs = fs
	what := "data `file`: .mat (MAT v5), .npy/.npz (NumPy), .csv or .csv.gz (features then label per line)"
	if !required {
		what += "; default: built-in synthetic data"
	}
	fs.StringVar(&d.path, "data", "", what)
	fs.StringVar(&d.yVar, "y-var", "", "`variable` holding all samples (default: detected)")
	fs.StringVar(&d.labelVar, "label-var", "", "`variable` holding the labels of -y-var (default: detected)")
	fs.StringVar(&d.trainVar, "train-var", "", "`variable` holding the training samples of a file split into train and test (default: detected, e.g. Y_train, tr_dat)")
	fs.StringVar(&d.testVar, "test-var", "", "`variable` holding the test samples (default: detected, e.g. Y_test, tt_dat)")
	fs.StringVar(&d.trainLabelVar, "train-label-var", "", "`variable` holding the training labels (default: detected, e.g. label_train, trls)")
	fs.StringVar(&d.testLabelVar, "test-label-var", "", "`variable` holding the test labels (default: detected, e.g. label_test, ttls)")
	fs.BoolVar(&d.asRows, "samples-as-rows", false, "the data has one sample per row (default: detected from the label count; NumPy: rows)")
	d.normalize = true
	if withNormalize {
		fs.BoolVar(&d.normalize, "normalize", true, "scale every sample to unit ℓ2 norm, as the paper does for every data set (-normalize=false keeps the data as it is)")
	}
	if withNoLabels {
		fs.BoolVar(&d.noLabels, "no-labels", false, "the data has no labels: a CSV file's last column is a feature (default: labels are read when the file has them)")
	}
}

// normalizeNote says what -normalize did, for the user.
func normalizeNote(on bool) string {
	if on {
		return "samples scaled to unit ℓ2 norm (-normalize=false keeps them as they are)"
	}
	return "samples used as they are, not normalised (-normalize=false)"
}

// optionFlags maps the fields of data.LoadOptions to the command's flags.
var optionFlags = map[string]string{
	"YVar": "-y-var", "LabelVar": "-label-var", "YTrainVar": "-train-var", "YTestVar": "-test-var",
	"LabelTrainVar": "-train-label-var", "LabelTestVar": "-test-label-var", "NoLabels": "-no-labels",
	"SamplesAsRows": "-samples-as-rows", "Normalize": "-normalize", "MaxMemory": "-max-memory",
}

// load reads the data set named by the flags; rep, if not nil, prints the
// loader's notes on how it chose the variables when verbose. When ctx is
// cancelled it returns at once, leaving the reading to end with the
// process.
func (d *dataFlags) load(ctx context.Context, rep *reporter) (*data.Dataset, error) {
	if d.path == "" {
		return nil, usagef("missing -data FILE")
	}
	opts := data.LoadOptions{YVar: d.yVar, LabelVar: d.labelVar, YTrainVar: d.trainVar, YTestVar: d.testVar,
		LabelTrainVar: d.trainLabelVar, LabelTestVar: d.testLabelVar, NoLabels: d.noLabels, Normalize: d.normalize,
		MaxMemory: methods.MemoryLimit()}
	if isSet(d.fs, "samples-as-rows") {
		opts.SamplesAsRows = &d.asRows
	}
	type loaded struct {
		ds  *data.Dataset
		err error
	}
	done := make(chan loaded, 1)
	go func() {
		ds, err := data.Load(d.path, opts)
		done <- loaded{ds, err}
	}()
	var ds *data.Dataset
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case l := <-done:
		if l.err != nil {
			return nil, loadError{l.err}
		}
		ds = l.ds
	}
	if rep != nil && rep.verbose {
		for _, n := range ds.Notes {
			rep.event("%s: %s", d.path, n)
		}
	}
	return ds, nil
}

// loadError is a loader error in the command's words: the flag that
// resolves it instead of the Go field.
type loadError struct{ err error }

func (e loadError) Unwrap() error { return e.err }

func (e loadError) Error() string {
	err := e.err
	msg := err.Error()
	var oe *data.OptionError
	if errors.As(err, &oe) {
		f, ok := optionFlags[oe.Option]
		if !ok {
			f = oe.Option
		}
		msg = strings.Replace(msg, oe.Error(), fmt.Sprintf("%s (set %s)", oe.Msg, f), 1)
	}
	for field, f := range optionFlags {
		msg = strings.ReplaceAll(msg, "LoadOptions."+field, f)
		msg = strings.ReplaceAll(msg, "set "+field, "give "+f)
	}
	return msg
}

// missingLabels reports whether err says that the data has no labels.
func missingLabels(err error) bool {
	var oe *data.OptionError
	return errors.As(err, &oe) && (oe.Option == "NoLabels" || strings.Contains(oe.Msg, "NoLabels"))
}

// checkTraining returns an error if s cannot train anything: all its
// samples are zero.
func checkTraining(path string, s split.Set) error {
	if s.Y != nil && allZero(s.Y) {
		return fmt.Errorf("%s: every training sample is zero", path)
	}
	return nil
}

// allZero reports whether every entry of m is zero, visiting only the
// stored entries of a sparse matrix (mat.Norm would read every entry by At).
func allZero(m mat.Matrix) bool {
	if s, ok := m.(mat.NonZeroDoer); ok {
		zero := true
		s.DoNonZero(func(_, _ int, v float64) { zero = zero && v == 0 })
		return zero
	}
	return mat.Norm(m, 1) == 0
}
