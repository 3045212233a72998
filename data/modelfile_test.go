package data_test

import (
	"context"
	"flag"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/lrsdl/lrsdl/data"
	"github.com/lrsdl/lrsdl/methods"
)

var updateModel = flag.Bool("update-model", false, "rewrite testdata/fddl-v3.model and its labels")

// A model file of the current format, committed, loads and predicts the
// labels recorded beside it, bit for bit.
func TestCommittedModel(t *testing.T) {
	ds, _, err := data.SyntheticSplit(data.SyntheticOptions{PerClass: 20, Size: 8, Seed: 2}, 10)
	if err != nil {
		t.Fatal(err)
	}
	const path, labels = "testdata/fddl-v3.model", "testdata/fddl-v3.labels"
	if *updateModel {
		m := &methods.FDDL{Options: methods.FDDLOptions{K: 3, Iters: 2, Seed: 1}}
		if err := m.Fit(context.Background(), ds.Train.Y, ds.Train.Labels); err != nil {
			t.Fatal(err)
		}
		if err := data.WriteClassifier(path, m, data.ModelInfo{Normalize: true}); err != nil {
			t.Fatal(err)
		}
		pred, err := m.Predict(ds.Test.Y)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, l := range pred {
			b.WriteString(strconv.Itoa(l) + "\n")
		}
		if err := os.WriteFile(labels, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c, info, err := data.ReadClassifier(path, newClassifier)
	if err != nil {
		t.Fatal(err)
	}
	if info.Version != 3 || !info.Normalize {
		t.Errorf("info %+v", info)
	}
	raw, err := os.ReadFile(labels)
	if err != nil {
		t.Fatal(err)
	}
	var want []int
	for _, f := range strings.Fields(string(raw)) {
		l, err := strconv.Atoi(f)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, l)
	}
	got, err := c.Predict(ds.Test.Y)
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("predicts %v (%v), want %v", got, err, want)
	}
}
