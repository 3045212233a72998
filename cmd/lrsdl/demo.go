package main

import (
	"context"
	"fmt"
	"image"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"

	"github.com/lrsdl/lrsdl/core"
	"github.com/lrsdl/lrsdl/data"
	"github.com/lrsdl/lrsdl/eval"
	"github.com/lrsdl/lrsdl/methods"
	"github.com/lrsdl/lrsdl/report"
)

// demoParams are the demo's own options of some methods, for speed:
// SRC codes every test sample with FISTA, 30 iterations instead of 200.
var demoParams = map[string]eval.Params{"SRC": {"iters": 30}}

// atomMethods are the methods drawn in atoms.png, as in the paper's figure.
var atomMethods = []string{"DLSI", "FDDL", "COPAR", "LRSDL"}

func runDemo(ctx context.Context, e *env, args []string) error {
	fs := flagSet(e, "demo")
	out := fs.String("out", "", "existing `directory` for atoms.png (default: a new directory lrsdl-demo-N in the current one)")
	perClass := fs.Int("train-per-class", 200, "training samples per class (the paper: 200)")
	testPerClass := fs.Int("test-per-class", 100, "test samples per class (the paper: 800)")
	iters := fs.Int("iters", 0, "iterations of every method with an iters option (0: each method's default)")
	seed := fs.Uint64("seed", 1, "random seed of the data and the methods")
	only := fs.String("method", "", "comma-separated method `names` to run (default: all registered)")
	memoryFlag(fs)
	e.progressFlags(fs)
	if err := parse(e, fs, args); err != nil {
		return err
	}
	if *perClass < 1 || *testPerClass < 1 {
		return usagef("-train-per-class and -test-per-class must be at least 1")
	}
	synth := data.SyntheticOptions{Classes: 4, Size: 20, PerClass: *perClass + *testPerClass, Seed: *seed}
	// The data, its split and a normalised copy of each set.
	need := 3 * 8 * float64(synth.Classes*synth.Size*synth.Size) * (float64(*perClass) + float64(*testPerClass))
	if limit := float64(methods.MemoryLimit()); need > limit {
		return usagef("-train-per-class %d -test-per-class %d: the synthetic data would need %.4g MB of memory, above the limit of %.4g MB (-max-memory)", *perClass, *testPerClass, need/1e6, limit/1e6)
	}
	if *out == "" {
		dir, err := newDemoDir(".")
		if err != nil {
			return err
		}
		// Remove it again if nothing gets written (os.Remove keeps a
		// directory that is not empty).
		defer os.Remove(dir)
		*out = dir
	} else if err := existingDir("-out", *out); err != nil {
		return err
	}
	names := methodNames()
	if *only != "" {
		names = strings.Split(*only, ",")
	}
	if len(names) == 0 {
		return fmt.Errorf("no methods are registered in this build")
	}
	ds, pat, err := data.SyntheticSplit(synth, *perClass)
	if err != nil {
		return err
	}
	train, test := ds.Train, ds.Test
	d, _ := train.Y.Dims()
	_, k0 := pat.Shared.Dims()
	fmt.Fprintf(e.stdout, "Synthetic data: %d classes of %d×%d-pixel images (d=%d), %d class and %d shared patterns; %d train and %d test samples per class\n\n",
		len(ds.Classes), pat.Size, pat.Size, d, pat.ClassAtoms, k0, *perClass, *testPerClass)
	// Dictionary sizes of the planted patterns (and as many nonzeros per
	// code), seed and iterations, where the method has these options.
	mf := methodFlags{params: eval.Params{}, seed: *seed, iters: *iters}
	sizes := eval.Params{"k": pat.ClassAtoms, "k0": k0, "sparsity": pat.ClassAtoms}
	fmt.Fprintf(e.stdout, "%-8s %10s %9s %15s\n", "method", "accuracy %", "train s", "test ms/sample")
	atoms := map[string]image.Image{}
	var failed []string
	for _, n := range names {
		c, err := mf.newClassifier(n)()
		if err != nil {
			return err
		}
		set := eval.Params{}
		for _, k := range eval.ParamNames(c) {
			if v, ok := sizes[k]; ok {
				set[k] = v
			}
		}
		if *iters == 0 {
			for k, v := range demoParams[strings.ToUpper(n)] {
				set[k] = v
			}
		}
		if err := eval.Configure(c, set); err != nil {
			return err
		}
		j := e.rep.job(c.Name(), 1)
		setProgress(c, j.fit("", iterations(c)))
		r, _, err := eval.FitPredict(ctx, c, train, test)
		j.finish()
		if err != nil {
			if ctx.Err() != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "%-8s failed: %v\n", c.Name(), err)
			failed = append(failed, c.Name())
			continue
		}
		fmt.Fprintf(e.stdout, "%-8s %10.2f %9.3g %15.3g\n", c.Name(), 100*r.Accuracy, r.TrainTime.Seconds(), 1e3*r.TestTime.Seconds()/float64(r.NTest))
		if al, ok := c.(methods.Dictionary); ok {
			D, part, D0 := al.Atoms()
			img, err := report.AtomGrid(D, part, D0, pat.Size, pat.Size)
			if err != nil {
				return fmt.Errorf("%s atoms: %v", c.Name(), err)
			}
			atoms[c.Name()] = img
		}
	}
	truth, err := report.AtomGrid(pat.Class, classPartition(len(ds.Classes), pat.ClassAtoms), pat.Shared, pat.Size, pat.Size)
	if err != nil {
		return err
	}
	row := []*plot.Plot{report.ImagePlot("planted", truth)}
	var missing []string
	for _, n := range atomMethods {
		if a, ok := atoms[n]; ok {
			row = append(row, report.ImagePlot(n, a))
		} else {
			missing = append(missing, n)
		}
	}
	path := filepath.Join(*out, "atoms.png")
	if err := writePNG(e.rep, path, [][]*plot.Plot{row}, 200*len(row), 260); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "\nwrote %s: atoms per class in rows, shared atoms last", path)
	if len(missing) > 0 {
		fmt.Fprintf(e.stdout, " (not available: %v)", missing)
	}
	fmt.Fprintln(e.stdout)
	if len(failed) > 0 {
		return fmt.Errorf("%d methods failed: %v", len(failed), failed)
	}
	return nil
}

func classPartition(classes, k int) core.Partition {
	s := make([]int, classes)
	for i := range s {
		s[i] = k
	}
	return core.NewPartition(s...)
}

// newDemoDir creates and returns the first of parent/lrsdl-demo-1,
// lrsdl-demo-2, ... that does not exist.
func newDemoDir(parent string) (string, error) {
	for i := 1; ; i++ {
		dir := filepath.Join(parent, fmt.Sprintf("lrsdl-demo-%d", i))
		err := os.Mkdir(dir, 0o755)
		if err == nil {
			return dir, nil
		}
		if !os.IsExist(err) || i == 1000 {
			return "", fmt.Errorf("cannot create an output directory (give -out DIR): %v", err)
		}
	}
}
