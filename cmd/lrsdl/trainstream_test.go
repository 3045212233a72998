package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl/data"
	"github.com/lrsdl/lrsdl/stream"
)

// writeShards writes the columns of Y (and their labels) as n shards of
// samples as rows, X_i.npy with y_i.npy, into dir.
func writeShards(t *testing.T, dir string, Y *mat.Dense, labels []int, n int) {
	t.Helper()
	_, N := Y.Dims()
	for i := range n {
		lo, hi := i*N/n, (i+1)*N/n
		write := func(name string, f func(*os.File) error) {
			w, err := os.Create(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			if err := f(w); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
		}
		write("X_"+strconv.Itoa(i)+".npy", func(w *os.File) error { return stream.WriteNPY(w, Y.Slice(0, Y.RawMatrix().Rows, lo, hi), false) })
		write("y_"+strconv.Itoa(i)+".npy", func(w *os.File) error { return stream.WriteLabelsNPY(w, labels[lo:hi]) })
	}
}

// TestTrainStream trains LRSDL by minibatches from a directory of shards,
// then predicts a held-out set with the model file as any LRSDL model.
func TestTrainStream(t *testing.T) {
	dir := t.TempDir()
	shards := filepath.Join(dir, "shards")
	if err := os.Mkdir(shards, 0o755); err != nil {
		t.Fatal(err)
	}
	Y, labels := data.FaceLike(3, 30, 60, 5)
	// Every fourth sample is held out for prediction.
	var tr, te []int
	for j := range labels {
		if j%4 == 3 {
			te = append(te, j)
		} else {
			tr = append(tr, j)
		}
	}
	cols := func(idx []int) (*mat.Dense, []int) {
		m := mat.NewDense(30, len(idx), nil)
		l := make([]int, len(idx))
		for i, j := range idx {
			m.SetCol(i, mat.Col(nil, j, Y))
			l[i] = labels[j]
		}
		return m, l
	}
	Ytr, ltr := cols(tr)
	writeShards(t, shards, Ytr, ltr, 3)
	Yte, lte := cols(te)
	var csv strings.Builder
	for j := range lte {
		for i := range 30 {
			csv.WriteString(strconv.FormatFloat(Yte.At(i, j), 'g', -1, 64) + ",")
		}
		csv.WriteString(strconv.Itoa(lte[j]) + "\n")
	}
	test := filepath.Join(dir, "test.csv")
	if err := os.WriteFile(test, []byte(csv.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	model := filepath.Join(dir, "m.model")
	code, out, e := runCmd(t, "train", "-method", "LRSDL", "-batch", "32", "-epochs", "3", "-p", "k=5", "-p", "k0=2", "-data", shards, "-o", model)
	if code != 0 {
		t.Fatalf("train -batch: exit %d: %s", code, e)
	}
	// 3 epochs of 135 samples; a class's first k samples wait until it has them.
	seen := regexp.MustCompile(`by minibatches on (\d+) samples`).FindStringSubmatch(out)
	if n, _ := strconv.Atoi(append(seen, "", "")[1]); n < 2*135 || n > 3*135 {
		t.Errorf("train output names %v samples seen, want 270..405:\n%s", seen, out)
	}
	code, out, e = runCmd(t, "predict", "-model", model, "-data", test)
	if code != 0 {
		t.Fatalf("predict: exit %d: %s", code, e)
	}
	m := regexp.MustCompile(`accuracy ([0-9.]+)%`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("predict printed no accuracy:\n%s", out)
	}
	if acc, _ := strconv.ParseFloat(m[1], 64); acc < 90 {
		t.Errorf("accuracy %.2f%% of the streamed model on held-out samples, want ≥ 90%%", acc)
	}
}

// TestTrainStreamBadInput: each misuse of -batch is an error that names
// what is wrong, and no model file is written.
func TestTrainStreamBadInput(t *testing.T) {
	dir := t.TempDir()
	shards := filepath.Join(dir, "shards")
	if err := os.Mkdir(shards, 0o755); err != nil {
		t.Fatal(err)
	}
	Y, labels := data.FaceLike(2, 10, 10, 1)
	writeShards(t, shards, Y, labels, 2)
	// A third shard of another dimension.
	Z, zl := data.FaceLike(2, 11, 5, 2)
	writeShards(t, filepath.Join(dir), Z, zl, 1)
	for _, f := range []string{"X_0.npy", "y_0.npy"} {
		if err := os.Rename(filepath.Join(dir, f), filepath.Join(shards, strings.Replace(f, "_0", "_9", 1))); err != nil {
			t.Fatal(err)
		}
	}
	model := filepath.Join(dir, "m.model")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-method", "SRC", "-batch", "8", "-data", shards}, 2, "for LRSDL and FDDL"},
		{[]string{"-method", "LRSDL", "-batch", "8", "-data", shards, "-p", "w=0.5"}, 2, "minibatch training takes"},
		{[]string{"-method", "LRSDL", "-batch", "8", "-data", filepath.Join(shards, "X_1.npy")}, 2, "needs -labels"},
		{[]string{"-method", "LRSDL", "-batch", "8", "-data", shards, "-p", "k=2.5"}, 2, "whole number"},
		{[]string{"-method", "LRSDL", "-epochs", "2", "-data", shards}, 2, "go with -batch"},
		{[]string{"-method", "LRSDL", "-batch", "8", "-p", "k=3", "-data", shards}, 1, "X_9.npy"},
	} {
		code, _, e := runCmd(t, append(append([]string{"train"}, c.args...), "-o", model)...)
		if code != c.code || !strings.Contains(e, c.want) {
			t.Errorf("train %v: exit %d, %q; want exit %d and %q", c.args, code, e, c.code, c.want)
		}
		if _, err := os.Stat(model); err == nil {
			t.Fatalf("train %v left a model file", c.args)
		}
	}
}
