package main

import (
	"errors"
	"flag"
	"strings"

	"github.com/lrsdl/lrsdl/data"
)

// dataFlags are the flags shared by all commands that read data.
type dataFlags struct {
	path, yVar, labelVar string
	asRows, normalize    bool
	fs                   *flag.FlagSet
}

// register adds the data flags to fs; -normalize only if withNormalize
// (predict takes the choice from the model).
func (d *dataFlags) register(fs *flag.FlagSet, required, withNormalize bool) {
	d.fs = fs
	what := "data `file`: .mat (MAT v5), .csv or .csv.gz (features then label per line)"
	if !required {
		what += "; default: built-in synthetic data"
	}
	fs.StringVar(&d.path, "data", "", what)
	fs.StringVar(&d.yVar, "y-var", "", "MAT-file `variable` holding the samples (default: detected)")
	fs.StringVar(&d.labelVar, "label-var", "", "MAT-file `variable` holding the labels (default: detected)")
	fs.BoolVar(&d.asRows, "samples-as-rows", false, "MAT-file data has one sample per row (default: detected from the label count)")
	d.normalize = true
	if withNormalize {
		fs.BoolVar(&d.normalize, "normalize", true, "scale every sample to unit ℓ2 norm, as the paper does for every data set (-normalize=false keeps the data as it is)")
	}
}

// normalizeNote says what -normalize did, for the user.
func normalizeNote(on bool) string {
	if on {
		return "samples scaled to unit ℓ2 norm (-normalize=false keeps them as they are)"
	}
	return "samples used as they are, not normalised (-normalize=false)"
}

// flagNames maps the data package's option names to the command's flags.
var flagNames = strings.NewReplacer(
	"LoadOptions.YVar", "-y-var", "LoadOptions.LabelVar", "-label-var",
	"LoadOptions.SamplesAsRows", "-samples-as-rows",
	"YVar/LabelVar", "-y-var/-label-var",
	"YTrainVar/YTestVar/LabelTrainVar/LabelTestVar", "-train-var/-test-var/-train-label-var/-test-label-var",
)

// load reads the data set named by the flags.
func (d *dataFlags) load() (*data.Dataset, error) {
	if d.path == "" {
		return nil, usagef("missing -data FILE")
	}
	opts := data.LoadOptions{YVar: d.yVar, LabelVar: d.labelVar, Normalize: d.normalize}
	d.fs.Visit(func(f *flag.Flag) {
		if f.Name == "samples-as-rows" {
			opts.SamplesAsRows = &d.asRows
		}
	})
	ds, err := data.Load(d.path, opts)
	if err != nil {
		return nil, errors.New(flagNames.Replace(err.Error()))
	}
	return ds, nil
}
