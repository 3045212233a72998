package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"slices"
	"strconv"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/core"
	"github.com/lrsdl/lrsdl/internal/modelfile"
)

type fakeOptions struct {
	K         int     `json:"k"`
	K0        int     `json:"k0"`
	Lambda    float64 `json:"lambda"`
	Iters     int     `json:"iters"`
	Seed      uint64  `json:"seed"`
	OriginalX bool    `json:"original_x"`
	OriginalD bool    `json:"original_d"`
	Tol       float64 `json:"tol"` // ≥ 0: stop after 2 iterations, as if converged
	// NoNormalize is recorded only: the command scales the samples.
	NoNormalize bool               `json:"no_normalize"`
	Progress    lrsdl.ProgressFunc `json:"-"`
}

// fake is a nearest-class-mean classifier under any name. With lambda >
// 0.5 it predicts the first class only. Its atoms are the class means.
type fake struct {
	name    string
	Options fakeOptions
	classes []int
	means   *mat.Dense // d×C
}

func (f *fake) Name() string { return f.name }

// optionMap returns the fake's options by JSON name.
func (f *fake) optionMap() map[string]any {
	b, _ := json.Marshal(f.Options)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return m
}

// Params, SetParam and SetProgress make fake an lrsdl.Configurable.
func (f *fake) Params() []lrsdl.Param {
	m := f.optionMap()
	var ps []lrsdl.Param
	for _, n := range slices.Sorted(maps.Keys(m)) {
		ps = append(ps, lrsdl.Param{Name: n, Value: fmt.Sprint(m[n])})
	}
	return ps
}

func (f *fake) SetParam(name, value string) error {
	m := f.optionMap()
	if _, ok := m[name]; !ok {
		return fmt.Errorf("methods: %s has no option %q", f.name, name)
	}
	var v any
	if json.Unmarshal([]byte(value), &v) != nil {
		v = value
	}
	if _, ok := m[name].(bool); ok {
		if b, err := strconv.ParseBool(value); err == nil {
			v = b
		}
	}
	if name == "tol" && v == 0.0 {
		v = -1.0 // a literal 0, as methods.Off: run every iteration
	}
	m[name] = v
	b, _ := json.Marshal(m)
	o := f.Options
	if err := json.Unmarshal(b, &o); err != nil {
		return fmt.Errorf("methods: %s option %s=%s: %v", f.name, name, value, err)
	}
	f.Options = o
	return nil
}

func (f *fake) SetProgress(p lrsdl.ProgressFunc) { f.Options.Progress = p }

// fakeLog records what the fakes did, for tests.
var fakeLog struct {
	sync.Mutex
	fits     int        // calls of Fit
	predictY mat.Matrix // the samples of the last Predict
}

func (f *fake) Fit(ctx context.Context, Y mat.Matrix, labels []int) error {
	fakeLog.Lock()
	fakeLog.fits++
	fakeLog.Unlock()
	d, n := Y.Dims()
	if n != len(labels) {
		return fmt.Errorf("fake: %d labels for %d samples", len(labels), n)
	}
	f.classes = slices.Compact(slices.Sorted(slices.Values(labels)))
	f.means = mat.NewDense(d, len(f.classes), nil)
	cnt := make([]float64, len(f.classes))
	for j, l := range labels {
		c, _ := slices.BinarySearch(f.classes, l)
		cnt[c]++
		for i := range d {
			f.means.Set(i, c, f.means.At(i, c)+Y.At(i, j))
		}
	}
	for c := range cnt {
		for i := range d {
			f.means.Set(i, c, f.means.At(i, c)/cnt[c])
		}
	}
	iters := max(f.Options.Iters, 1)
	if f.Options.Tol >= 0 {
		iters = min(iters, 2)
	}
	for it := 1; it <= iters; it++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		if f.Options.Progress != nil {
			v := 1 / float64(it)
			if f.Options.OriginalX {
				v *= 2
			}
			f.Options.Progress(lrsdl.Progress{Iter: it, Cost: lrsdl.Cost{Total: v, Terms: []lrsdl.Term{{Name: "fidelity", Value: v}}}})
		}
	}
	return nil
}

func (f *fake) Predict(Y mat.Matrix) ([]int, error) {
	fakeLog.Lock()
	fakeLog.predictY = Y
	fakeLog.Unlock()
	if f.means == nil {
		return nil, fmt.Errorf("fake: not trained")
	}
	d, n := Y.Dims()
	if r, _ := f.means.Dims(); r != d {
		return nil, fmt.Errorf("fake: dimension %d, trained on %d", d, r)
	}
	out := make([]int, n)
	for j := range n {
		best := math.Inf(1)
		for c := range f.classes {
			s := 0.0
			for i := range d {
				v := Y.At(i, j) - f.means.At(i, c)
				s += v * v
			}
			if s < best {
				best, out[j] = s, f.classes[c]
			}
		}
		if f.Options.Lambda > 0.5 {
			out[j] = f.classes[0]
		}
	}
	return out, nil
}

func (f *fake) PredictContext(ctx context.Context, Y mat.Matrix) ([]int, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return f.Predict(Y)
}

// Classes, FitInfo, DecisionFunction, PredictProba and Transform make fake
// an lrsdl.Model, which model files hold; the command calls none of the
// last three.
func (f *fake) Classes() []int         { return f.classes }
func (f *fake) FitInfo() lrsdl.FitInfo { return lrsdl.FitInfo{} }
func (f *fake) DecisionFunction(mat.Matrix) (*mat.Dense, error) {
	return nil, errors.New("fake: no scores")
}
func (f *fake) PredictProba(mat.Matrix) (*mat.Dense, error) {
	return nil, errors.New("fake: no scores")
}
func (f *fake) Transform(mat.Matrix) (*mat.Dense, error) { return nil, errors.New("fake: no codes") }

func (f *fake) Atoms() (*mat.Dense, core.Partition, *mat.Dense) {
	sizes := make([]int, len(f.classes))
	for i := range sizes {
		sizes[i] = 1
	}
	return f.means, core.NewPartition(sizes...), nil
}

func (f *fake) State() (*lrsdl.State, error) {
	b, err := json.Marshal(f.Options)
	if err != nil {
		return nil, err
	}
	return &lrsdl.State{Method: f.name, Options: b, Classes: f.classes, Names: []string{"means"},
		Matrices: map[string]*mat.Dense{"means": f.means}}, nil
}

func (f *fake) SetState(s *lrsdl.State) error {
	if s.Matrices["means"] == nil {
		return fmt.Errorf("fake: no means in state")
	}
	f.classes, f.means = s.Classes, s.Matrices["means"]
	return json.Unmarshal(s.Options, &f.Options)
}

// useFakes makes the command see only fake methods with these names,
// and read their model files.
func useFakes(names ...string) func() {
	oldNew, oldNames, oldLoad := newMethod, methodNames, loadModel
	newMethod = func(n string) (lrsdl.Classifier, error) {
		for _, m := range names {
			if m == n {
				return &fake{name: n}, nil
			}
		}
		return nil, fmt.Errorf("methods: unknown method %q", n)
	}
	methodNames = func() []string { return names }
	loadModel = func(path string) (lrsdl.Model, error) {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		s, _, err := modelfile.Decode(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		c, err := newMethod(s.Method)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		m := c.(*fake)
		if err := m.SetState(s); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return m, nil
	}
	return func() { newMethod, methodNames, loadModel = oldNew, oldNames, oldLoad }
}
