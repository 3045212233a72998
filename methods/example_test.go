package methods_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"slices"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/data"
	"github.com/lrsdl/lrsdl/eval"
	"github.com/lrsdl/lrsdl/methods"
	"github.com/lrsdl/lrsdl/split"
)

// The README's example: LRSDL on the AR gender data set.
func Example() {
	ctx := context.Background()
	ds, err := data.Load("../testdata/argender.mat", data.LoadOptions{Normalize: true})
	if err != nil {
		log.Fatal(err)
	}
	// Draw 250 training samples per class, seeded.
	train, err := split.Draw(ds.Train, 250, split.Rand(1))
	if err != nil {
		log.Fatal(err)
	}
	m := &methods.LRSDL{Options: methods.LRSDLOptions{K0: 10, Eta: 0.01}}
	if err := m.Fit(ctx, train.Y, train.Labels); err != nil {
		log.Fatal(err)
	}
	pred, err := m.Predict(ds.Test.Y)
	if err != nil {
		log.Fatal(err)
	}
	// Every model: per-class scores and probabilities (one row per class
	// of m.Classes(), one column per sample) and sparse codes.
	if _, err := methods.Calibrate(ctx, m, train.Y, train.Labels, 3); err != nil {
		log.Fatal(err)
	}
	P, err := m.PredictProba(ds.Test.Y)
	if err != nil {
		log.Fatal(err)
	}
	X, err := m.Transform(ds.Test.Y) // class-atom rows, then shared-atom rows
	if err != nil {
		log.Fatal(err)
	}
	rows, _ := X.Dims()
	fmt.Printf("accuracy above 85%%: %v; classes %v; P(class 1 | sample 1) in [0, 1]: %v; %d code rows\n",
		eval.Accuracy(pred, ds.Test.Labels) > 0.85, m.Classes(), P.At(0, 0) >= 0 && P.At(0, 0) <= 1, rows)
	// Output: accuracy above 85%: true; classes [1 2]; P(class 1 | sample 1) in [0, 1]: true; 50 code rows
}

// A method by name, its options set by name as the command's -p does.
func ExampleNew() {
	c, err := methods.New("fddl")
	if err != nil {
		log.Fatal(err)
	}
	cf := c.(lrsdl.Configurable)
	if err := cf.SetParam("lambda1", "0.001"); err != nil {
		log.Fatal(err)
	}
	fmt.Println(cf.SetParam("k", "0"))
	for _, p := range cf.Params()[:3] {
		fmt.Printf("%s=%q (default %s, range %s): %s\n", p.Name, p.Value, p.Default, p.Range, p.Doc)
	}
	// Output:
	// methods: FDDL option k=0: k must be ≥ 1, at most the samples of the smallest class
	// k="" (default min(20, smallest class), range ≥ 1, at most the samples of the smallest class): atoms per class
	// lambda1="0.001" (default 0.01, range > 0): ℓ1 weight λ1 of the codes
	// lambda2="" (default 0.01, range ≥ 0): Fisher weight λ2
}

// Saving a trained model and loading it back: the loaded model predicts
// the same labels.
func Example_modelFile() {
	ctx := context.Background()
	ds, _, err := data.SyntheticSplit(data.SyntheticOptions{PerClass: 60, Seed: 1}, 30)
	if err != nil {
		log.Fatal(err)
	}
	m := &methods.FDDL{Options: methods.FDDLOptions{K: 8, Iters: 5, Seed: 1}}
	if err := m.Fit(ctx, ds.Train.Y, ds.Train.Labels); err != nil {
		log.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "lrsdl-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "fddl.model")
	if err := methods.SaveFile(path, m); err != nil {
		log.Fatal(err)
	}

	// Later, in another process: the model as it was saved, options,
	// normalisation and classes included.
	c, err := methods.LoadFile(path)
	if err != nil {
		log.Fatal(err)
	}
	want, _ := m.Predict(ds.Test.Y)
	got, err := c.Predict(ds.Test.Y)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(c.Name(), "predicts the same labels:", slices.Equal(got, want))
	// Output: FDDL predicts the same labels: true
}

// Choosing options by cross-validation on the training set only.
func Example_crossValidate() {
	ds, _, err := data.SyntheticSplit(data.SyntheticOptions{PerClass: 60, Seed: 1}, 30)
	if err != nil {
		log.Fatal(err)
	}
	newFDDL := func() (lrsdl.Classifier, error) {
		return &methods.FDDL{Options: methods.FDDLOptions{Iters: 5, Seed: 1}}, nil
	}
	grid := eval.Grid{"lambda1": {0.001, 0.01}, "w": {0.25, 0.5}}
	res, err := eval.CrossValidateSet(context.Background(), newFDDL, ds.Train, 3, grid, 1)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(res.Scores), "points scored; best is one of them:", slices.ContainsFunc(res.Scores, func(s eval.CVScore) bool {
		return s.Params.String() == res.Best.String()
	}))
	// Output: 4 points scored; best is one of them: true
}
