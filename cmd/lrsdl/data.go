package main

import (
	"flag"

	"github.com/lrsdl/lrsdl/data"
)

// dataFlags are the flags shared by all commands that read data.
type dataFlags struct {
	path, yVar, labelVar string
	asRows, normalize    bool
	fs                   *flag.FlagSet
}

func (d *dataFlags) register(fs *flag.FlagSet, required bool) {
	d.fs = fs
	what := "data `file`: .mat (MAT v5), .csv or .csv.gz (features then label per line)"
	if !required {
		what += "; default: built-in synthetic data"
	}
	fs.StringVar(&d.path, "data", "", what)
	fs.StringVar(&d.yVar, "y-var", "", "MAT-file `variable` holding the samples (default: detected)")
	fs.StringVar(&d.labelVar, "label-var", "", "MAT-file `variable` holding the labels (default: detected)")
	fs.BoolVar(&d.asRows, "samples-as-rows", false, "MAT-file data has one sample per row (default: detected from the label count)")
	fs.BoolVar(&d.normalize, "normalize", false, "scale every sample to unit ℓ2 norm")
}

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
	return data.Load(d.path, opts)
}
