package main

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"

	"github.com/lrsdl/lrsdl/data"
	"github.com/lrsdl/lrsdl/eval"
	"github.com/lrsdl/lrsdl/report"
	"github.com/lrsdl/lrsdl/split"
)

// variant is one combination of original (O-) and efficient (E-) solvers.
type variant struct {
	name   string
	params eval.Params
}

// compareVariants are the versions compared in the paper's figures.
var compareVariants = map[string]struct {
	method   string
	variants []variant
}{
	"fddl": {"FDDL", []variant{
		{"O-FDDL", eval.Params{"original_x": true, "original_d": true}},
		{"O-FDDL-X + E-FDDL-D", eval.Params{"original_x": true, "original_d": false}},
		{"E-FDDL-X + O-FDDL-D", eval.Params{"original_x": false, "original_d": true}},
		{"E-FDDL", eval.Params{"original_x": false, "original_d": false}},
	}},
	"dlsi": {"DLSI", []variant{
		{"O-DLSI", eval.Params{"original_d": true}},
		{"E-DLSI", eval.Params{"original_d": false}},
	}},
	"copar": {"COPAR", []variant{
		{"O-COPAR", eval.Params{"original_d": true}},
		{"E-COPAR", eval.Params{"original_d": false}},
	}},
}

func runCompare(ctx context.Context, e *env, args []string) error {
	fs := flagSet(e, "compare")
	var df dataFlags
	var mf methodFlags
	df.register(fs, false, true, false)
	mf.register(fs)
	algo := fs.String("algo", "", "algorithm: `fddl`, dlsi or copar")
	out := fs.String("out", ".", "`directory` for compare-ALGO.png and compare-ALGO.csv")
	classes := fs.Int("C", 100, "synthetic data: number of classes (the paper: 100)")
	size := fs.Int("size", 17, "synthetic data: images of size×size pixels, d = size² (the paper: d=300 random faces; 17 gives 289)")
	perClass := fs.Int("n", 7, "training samples per class (the paper: 7)")
	k := fs.Int("k", 7, "atoms per class (the paper: 7)")
	e.progressFlags(fs)
	fs.Lookup("iters").DefValue = "100"
	mf.iters = 100
	if err := parse(e, fs, args); err != nil {
		return err
	}
	cmp, ok := compareVariants[strings.ToLower(*algo)]
	switch {
	case *algo == "":
		return usagef("missing -algo fddl|dlsi|copar")
	case !ok:
		return usagef("-algo %q: want fddl, dlsi or copar", *algo)
	case mf.iters < 1:
		return usagef("-iters %d: want at least 1", mf.iters)
	case *perClass < 1 || *k < 1 || *classes < 2:
		return usagef("need -n ≥ 1, -k ≥ 1, -C ≥ 2")
	case *size < 8 && df.path == "":
		return usagef("-size %d: want images of at least 8×8 pixels", *size)
	}
	if err := existingDir("-out", *out); err != nil {
		return err
	}
	mf.noNormalize = !df.normalize
	// Check the method and its options before loading data.
	for _, v := range cmp.variants {
		c, err := mf.newClassifier(cmp.method)()
		if err == nil {
			err = eval.Configure(c, v.params)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", v.name, err)
		}
	}
	var ds *data.Dataset
	var err error
	if df.path != "" {
		if ds, err = df.load(ctx, e.rep); err == nil {
			ds.Train, err = split.Draw(ds.Train, *perClass, split.Rand(mf.seed))
		}
	} else {
		ds, _, err = data.Synthetic(data.SyntheticOptions{Classes: *classes, PerClass: *perClass, Size: *size, Seed: mf.seed})
	}
	if err != nil {
		return err
	}
	train := ds.Train
	d, _ := train.Y.Dims()
	fmt.Fprintf(e.stdout, "%s: %d classes, d=%d, %d samples per class, k=%d atoms per class, %d iterations\n\n",
		cmp.method, len(ds.Classes), d, *perClass, *k, mf.iters)
	fmt.Fprintf(e.stdout, "%-20s %12s %9s %11s\n", "algorithm", "final cost", "total s", "s/iteration")
	var series []report.Series
	rows := [][]string{{"algorithm", "iteration", "seconds", "cost"}}
	for _, v := range cmp.variants {
		c, err := mf.newClassifier(cmp.method)()
		if err != nil {
			return err
		}
		// The paper's k and all iterations (no early stop), unless set by -p.
		base := eval.Params{"k": *k}
		if slices.Contains(eval.ParamNames(c), "tol") {
			base["tol"] = 0
		}
		for name := range mf.params {
			delete(base, name)
		}
		if err := eval.Configure(c, base); err != nil {
			return err
		}
		if err := eval.Configure(c, v.params); err != nil {
			return err
		}
		j := e.rep.job(v.name, 1)
		trace, err := eval.FitTrace(ctx, c, train.Y, train.Labels, j.fit("", mf.iters))
		j.finish()
		if err != nil {
			return fmt.Errorf("%s: %w", v.name, err)
		}
		s := report.Series{Name: v.name}
		for _, it := range trace {
			s.X = append(s.X, it.Elapsed.Seconds())
			s.Y = append(s.Y, it.Cost.Total)
			rows = append(rows, []string{v.name, strconv.Itoa(it.Iter), fmt.Sprint(it.Elapsed.Seconds()), fmt.Sprint(it.Cost.Total)})
		}
		last := len(s.X) - 1
		fmt.Fprintf(e.stdout, "%-20s %12.6g %9.3g %11.3g\n", v.name, s.Y[last], s.X[last], s.X[last]/float64(len(s.X)))
		series = append(series, s)
	}
	pl, err := report.Lines(fmt.Sprintf("%s: original and efficient algorithms", cmp.method), "time (s)", "cost", series...)
	if err != nil {
		return err
	}
	base := filepath.Join(*out, "compare-"+strings.ToLower(*algo))
	if err := writePNG(e.rep, base+".png", [][]*plot.Plot{{pl}}, 640, 480); err != nil {
		return err
	}
	if err := writeCSV(e.rep, base+".csv", rows); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "\nwrote %s.png and %s.csv (cost after every iteration)\n", base, base)
	return nil
}
