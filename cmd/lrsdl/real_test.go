package main

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/data"
	"github.com/lrsdl/lrsdl/eval"
	"github.com/lrsdl/lrsdl/matfile"
	"github.com/lrsdl/lrsdl/methods"
	"github.com/lrsdl/lrsdl/split"
)

// splitMAT writes a small synthetic data set with a test set as a MAT-file
// with labels 10, 20, 30, 40.
func splitMAT(t *testing.T) string {
	t.Helper()
	ds, _, err := data.SyntheticSplit(data.SyntheticOptions{PerClass: 30, Size: 12, Seed: 3}, 15)
	if err != nil {
		t.Fatal(err)
	}
	labels := func(s split.Set) *mat.Dense {
		m := mat.NewDense(1, s.Len(), nil)
		for j, l := range s.Labels {
			m.Set(0, j, float64(10*(l+1)))
		}
		return m
	}
	path := filepath.Join(t.TempDir(), "syn.mat")
	err = matfile.Write(path, nil, map[string]*mat.Dense{
		"Y_train": mat.DenseCopyOf(ds.Train.Y), "Y_test": mat.DenseCopyOf(ds.Test.Y),
		"label_train": labels(ds.Train), "label_test": labels(ds.Test),
	})
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// Every registered method trains, saves, loads and predicts through the
// command: the accuracy printed after training equals the accuracy of the
// loaded model on the same test set, and predictions are user labels.
func TestRealMethodsTrainPredict(t *testing.T) {
	names := methods.Names()
	if len(names) == 0 {
		t.Skip("no methods registered")
	}
	path := splitMAT(t)
	dir := t.TempDir()
	for _, n := range names {
		c, err := methods.New(n)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := c.(lrsdl.Persistent); !ok {
			continue
		}
		args := []string{"train", "-data", path, "-method", n, "-iters", "3", "-o", filepath.Join(dir, n+".model")}
		if has(c, "k") {
			args = append(args, "-p", "k=4")
		}
		if has(c, "sparsity") {
			args = append(args, "-p", "sparsity=4")
		}
		code, o, e := runCmd(t, args...)
		if code != 0 {
			t.Errorf("%s: train: exit %d: %s", n, code, e)
			continue
		}
		_, acc, _ := strings.Cut(o, "test accuracy ")
		acc, _, _ = strings.Cut(acc, "%")
		preds := filepath.Join(dir, n+".csv")
		code, o, e = runCmd(t, "predict", "-model", filepath.Join(dir, n+".model"), "-data", path, "-o", preds)
		if code != 0 {
			t.Errorf("%s: predict: exit %d: %s", n, code, e)
			continue
		}
		if acc == "" || !strings.Contains(o, "accuracy "+acc+"%") {
			t.Errorf("%s: accuracy after training %q, after loading:\n%s", n, acc, o)
		}
		f, _ := os.Open(preds)
		recs, err := csv.NewReader(f).ReadAll()
		f.Close()
		if err != nil || len(recs) != 61 {
			t.Fatalf("%s: %d predictions, %v", n, len(recs), err)
		}
		for _, r := range recs[1:] {
			if !strings.Contains(" 10 20 30 40 ", " "+r[1]+" ") {
				t.Errorf("%s: predicted label %s", n, r[1])
				break
			}
		}
	}
}

func has(c lrsdl.Classifier, opt string) bool {
	for _, n := range eval.ParamNames(c) {
		if n == opt {
			return true
		}
	}
	return false
}

// The demo runs every registered method and draws the atoms of those
// that learn dictionaries.
func TestRealMethodsDemo(t *testing.T) {
	if len(methods.Names()) == 0 {
		t.Skip("no methods registered")
	}
	dir := t.TempDir()
	code, o, e := runCmd(t, "demo", "-out", dir, "-train-per-class", "15", "-test-per-class", "10", "-iters", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, e)
	}
	for _, n := range methods.Names() {
		c, err := methods.New(n)
		if err != nil {
			t.Fatal(err)
		}
		if n = c.Name(); !strings.Contains(o, "\n"+n+" ") {
			t.Errorf("no row for %s:\n%s", n, o)
		}
	}
	if w, h := decodePNG(t, filepath.Join(dir, "atoms.png")); h != 260 || w < 200 {
		t.Errorf("atoms.png is %d×%d", w, h)
	}
}

// The default cross-validation grids name real options of the methods.
func TestDefaultGridsMatchMethods(t *testing.T) {
	for name, g := range eval.DefaultGrids {
		c, err := methods.New(name)
		if err != nil {
			continue // not registered in this build
		}
		for k := range g {
			if !has(c, k) {
				t.Errorf("grid of %s names option %q, which %s lacks (has %v)", name, k, name, eval.ParamNames(c))
			}
		}
	}
}
