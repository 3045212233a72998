package data_test

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/data"
	"github.com/lrsdl/lrsdl/methods"
)

// A classifier written with WriteClassifier comes back from ReadClassifier
// ready to predict the same labels; errors name the file.
func TestReadClassifier(t *testing.T) {
	ds, _, err := data.SyntheticSplit(data.SyntheticOptions{PerClass: 20, Size: 8, Seed: 2}, 10)
	if err != nil {
		t.Fatal(err)
	}
	m := &methods.FDDL{Options: methods.FDDLOptions{K: 3, Iters: 2, Seed: 1}}
	if err := m.Fit(context.Background(), ds.Train.Y, ds.Train.Labels); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "m")
	if err := data.WriteClassifier(path, m, data.ModelInfo{Normalize: true}); err != nil {
		t.Fatal(err)
	}
	c, info, err := data.ReadClassifier(path, newClassifier)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := m.Predict(ds.Test.Y)
	got, err := c.Predict(ds.Test.Y)
	if err != nil || !slices.Equal(got, want) || c.Name() != "FDDL" || info != (data.ModelInfo{Version: data.ModelVersion, Normalize: true}) {
		t.Errorf("%s %+v: %v, %v", c.Name(), info, got, err)
	}
	s, _ := m.State()
	s.Options = []byte(strings.Replace(string(s.Options), "{", `{"lamda1":0.5,"zeta":1,`, 1))
	data.WriteModel(path, s)
	if _, _, err := data.ReadClassifier(path, newClassifier); err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), `unknown options "lamda1", "zeta" of method FDDL`) {
		t.Errorf("unknown options: %v", err)
	}
	s, _ = m.State()
	s.Method = "NOPE"
	data.WriteModel(path, s)
	if _, _, err := data.ReadClassifier(path, newClassifier); err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "NOPE") {
		t.Errorf("unknown method: %v", err)
	}
}

func newClassifier(n string) (lrsdl.Classifier, error) { return methods.New(n) }
