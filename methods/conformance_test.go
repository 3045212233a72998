package methods

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
)

// The conformance suite runs every registered method (Names) through the
// contract every method keeps: bad input is an error, not a panic; options
// are checked against their ranges; cancellation, determinism, state round
// trips, concurrent prediction and progress reports behave alike. A new
// method is covered by registering it. The data are tiny, so the suite
// stays fast.

// resolvedOpts returns o with its defaults applied (no data-aware ones).
func resolvedOpts[T any, P interface {
	*T
	spec() optSpec
}](o T) T {
	if err := P(&o).spec().resolve(nil); err != nil {
		panic(err)
	}
	return o
}

// confMethod is what every method implements.
type confMethod = lrsdl.Model

const (
	confClasses  = 3
	confPerClass = 6
	confDim      = 10
)

// confData returns confClasses interleaved classes of confPerClass samples
// in dimension confDim, each around its own direction, labels 7, 8, 9.
func confData(seed uint64, perClass int) (*mat.Dense, []int) {
	rng := rand.New(rand.NewPCG(seed, 42))
	N := confClasses * perClass
	Y := mat.NewDense(confDim, N, nil)
	labels := make([]int, N)
	for j := 0; j < N; j++ {
		c := j % confClasses
		labels[j] = 7 + c
		for i := 0; i < confDim; i++ {
			v := 0.3 * rng.NormFloat64()
			if i%confClasses == c {
				v += 1
			}
			Y.Set(i, j, v)
		}
	}
	return Y, labels
}

// errNotConforming marks a registered method that does not implement the
// whole contract yet; the suite skips it.
var errNotConforming = errors.New("does not implement Configurable, Fitted, ContextPredictor and Persistent")

// confNew returns the named method with small, fast options: k=3, k0=2,
// sparsity 2 and two iterations of everything, where it has them.
func confNew(name string) (confMethod, error) {
	c, err := New(name)
	if err != nil {
		return nil, err
	}
	m := c
	for _, p := range m.Params() {
		v := ""
		switch {
		case p.Name == "k":
			v = "3"
		case p.Name == "k0":
			v = "2"
		case p.Name == "sparsity":
			v = "2"
		case p.Name == "seed":
			v = "5"
		case p.Type == "int" && strings.HasSuffix(p.Name, "iters"):
			v = "2"
		}
		if v != "" {
			if err := m.SetParam(p.Name, v); err != nil {
				return nil, fmt.Errorf("SetParam(%s, %s): %v", p.Name, v, err)
			}
		}
	}
	return m, nil
}

// newConf is confNew for a test, which it skips for a method not yet on
// the contract.
func newConf(t testing.TB, name string) confMethod {
	t.Helper()
	m, err := confNew(name)
	if errors.Is(err, errNotConforming) {
		t.Skipf("%s %v", name, err)
	}
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return m
}

func hasParam(m lrsdl.Configurable, name string) bool {
	return slices.ContainsFunc(m.Params(), func(p lrsdl.Param) bool { return p.Name == name })
}

// noPanic runs f and reports a panic as a test error.
func noPanic(t *testing.T, what string, f func()) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Errorf("%s panicked: %v", what, r)
		}
	}()
	f()
}

func forEachMethod(t *testing.T, f func(t *testing.T, name string)) {
	for _, name := range Names() {
		t.Run(name, func(t *testing.T) { f(t, name) })
	}
}

func TestConformanceBadInput(t *testing.T) {
	Y, labels := confData(1, confPerClass)
	nan, inf := mat.DenseCopyOf(Y), mat.DenseCopyOf(Y)
	nan.Set(2, 3, math.NaN())
	inf.Set(4, 1, math.Inf(-1))
	ones := make([]int, len(labels))
	forEachMethod(t, func(t *testing.T, name string) {
		for _, c := range []struct {
			what   string
			Y      mat.Matrix
			labels []int
		}{
			{"nil data", nil, labels},
			{"empty data", &mat.Dense{}, nil},
			{"NaN data", nan, labels},
			{"infinite data", inf, labels},
			{"too few labels", Y, labels[1:]},
			{"too many labels", Y, append(slices.Clone(labels), 7)},
			{"one class", Y, ones},
		} {
			m := newConf(t, name)
			noPanic(t, c.what, func() {
				if err := m.Fit(context.Background(), c.Y, c.labels); err == nil {
					t.Errorf("%s: no error", c.what)
				}
			})
		}
		m := newConf(t, name)
		for what, f := range map[string]func() error{
			"Predict":        func() error { _, err := m.Predict(Y); return err },
			"PredictContext": func() error { _, err := m.PredictContext(context.Background(), Y); return err },
			"State":          func() error { _, err := m.State(); return err },
		} {
			if err := f(); !errors.Is(err, ErrNotTrained) {
				t.Errorf("untrained %s: %v, want ErrNotTrained", what, err)
			}
		}
		if err := m.Fit(context.Background(), Y, labels); err != nil {
			t.Fatal(err)
		}
		for what, Yt := range map[string]mat.Matrix{"nil": nil, "NaN": nan, "wrong dimension": mat.NewDense(confDim+1, 2, nil)} {
			noPanic(t, "Predict on "+what+" data", func() {
				if _, err := m.Predict(Yt); err == nil {
					t.Errorf("Predict on %s data: no error", what)
				}
			})
		}
		if hasParam(m, "k") {
			m := newConf(t, name)
			if err := m.SetParam("k", fmt.Sprint(confPerClass+1)); err != nil {
				t.Fatal(err)
			}
			err := m.Fit(context.Background(), Y, labels)
			if err == nil || !strings.Contains(err.Error(), "k=") {
				t.Errorf("k above the samples per class: %v, want an error naming k", err)
			}
		}
	})
}

// optionField returns the field of the struct v (searched through embedded
// structs) whose JSON name is name.
func optionField(v reflect.Value, name string) (reflect.Value, bool) {
	for i := 0; i < v.NumField(); i++ {
		f, sf := v.Field(i), v.Type().Field(i)
		if sf.Anonymous && f.Kind() == reflect.Struct {
			if g, ok := optionField(f, name); ok {
				return g, true
			}
			continue
		}
		if strings.Split(sf.Tag.Get("json"), ",")[0] == name {
			return f, true
		}
	}
	return reflect.Value{}, false
}

func TestConformanceOptionRanges(t *testing.T) {
	Y, labels := confData(2, confPerClass)
	forEachMethod(t, func(t *testing.T, name string) {
		for _, p := range newConf(t, name).Params() {
			var bad []string
			switch p.Type {
			case "int":
				bad = []string{"-5", "1.5", "NaN", "abc"}
			case "float":
				bad = []string{"-5", "NaN", "Inf", "-Inf", "abc"}
			case "bool":
				bad = []string{"maybe"}
			case "seed":
				bad = []string{"-1"}
			case "string":
				bad = []string{"no such value"}
			}
			for _, v := range bad {
				m := newConf(t, name)
				before := fmt.Sprint(m.Params())
				err := m.SetParam(p.Name, v)
				if err == nil || !strings.Contains(err.Error(), p.Name) {
					t.Errorf("SetParam(%s, %q): %v, want an error naming %s", p.Name, v, err, p.Name)
				}
				if after := fmt.Sprint(m.Params()); after != before {
					t.Errorf("SetParam(%s, %q) changed the options", p.Name, v)
				}
			}
			if p.Type != "int" && p.Type != "float" {
				continue
			}
			// The same values set in the Options struct are errors of Fit.
			for _, x := range []float64{-5, math.NaN(), math.Inf(1)} {
				m := newConf(t, name)
				opts := reflect.ValueOf(m).Elem().FieldByName("Options")
				if !opts.IsValid() {
					t.Fatalf("%s has no Options field", name)
				}
				f, ok := optionField(opts, p.Name)
				if !ok {
					t.Fatalf("no field with JSON name %q in %s", p.Name, opts.Type())
				}
				if p.Type == "int" {
					if math.IsNaN(x) || math.IsInf(x, 0) {
						continue
					}
					f.SetInt(int64(x))
				} else {
					f.SetFloat(x)
				}
				var err error
				noPanic(t, "Fit", func() { err = m.Fit(context.Background(), Y, labels) })
				if err == nil || !strings.Contains(err.Error(), p.Name+"=") {
					t.Errorf("Fit with %s=%v in the Options: %v, want an error naming %s", p.Name, x, err, p.Name)
				}
			}
		}
	})
}

func TestConformanceCancellation(t *testing.T) {
	Y, labels := confData(3, confPerClass)
	forEachMethod(t, func(t *testing.T, name string) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		m := newConf(t, name)
		if err := m.Fit(ctx, Y, labels); !errors.Is(err, context.Canceled) {
			t.Errorf("Fit with a cancelled context: %v", err)
		}
		// Cancelled from the first progress report: no further iteration.
		m = newConf(t, name)
		if err := m.SetParam("iters", "50"); err == nil {
			ctx, cancel = context.WithCancel(context.Background())
			calls := 0
			m.SetProgress(func(lrsdl.Progress) { calls++; cancel() })
			err := m.Fit(ctx, Y, labels)
			cancel()
			if calls > 0 && (!errors.Is(err, context.Canceled) || calls != 1 || m.FitInfo().Stop != lrsdl.StopCancelled) {
				t.Errorf("cancelled at iteration 1: %v after %d iterations, stop %q", err, calls, m.FitInfo().Stop)
			}
		}
		m = newConf(t, name)
		if err := m.Fit(context.Background(), Y, labels); err != nil {
			t.Fatal(err)
		}
		ctx, cancel = context.WithCancel(context.Background())
		cancel()
		if _, err := m.PredictContext(ctx, Y); !errors.Is(err, context.Canceled) {
			t.Errorf("PredictContext with a cancelled context: %v", err)
		}
	})
}

func TestConformanceDeterminismAndState(t *testing.T) {
	Y, labels := confData(4, confPerClass)
	Yt, _ := confData(5, 4)
	forEachMethod(t, func(t *testing.T, name string) {
		var preds [2][]int
		var states [2]*lrsdl.State
		for i := range preds {
			m := newConf(t, name)
			if err := m.Fit(context.Background(), Y, labels); err != nil {
				t.Fatal(err)
			}
			var err error
			if preds[i], err = m.Predict(Yt); err != nil {
				t.Fatal(err)
			}
			if states[i], err = m.State(); err != nil {
				t.Fatal(err)
			}
			for _, l := range preds[i] {
				if l < 7 || l > 9 {
					t.Fatalf("predicted label %d, not a training label", l)
				}
			}
			// A fresh model from the state predicts bit for bit alike and
			// reports the same options.
			r := newConf(t, name)
			if err := r.SetState(states[i]); err != nil {
				t.Fatal(err)
			}
			got, err := r.Predict(Yt)
			if err != nil || !slices.Equal(got, preds[i]) {
				t.Errorf("restored model predicts %v (%v), want %v", got, err, preds[i])
			}
			if a, b := fmt.Sprint(r.Params()), fmt.Sprint(m.Params()); a != b {
				t.Errorf("restored options %s, want %s", a, b)
			}
		}
		if !slices.Equal(preds[0], preds[1]) {
			t.Errorf("same seed, different predictions: %v, %v", preds[0], preds[1])
		}
		for _, n := range states[0].Names {
			if !mat.Equal(states[0].Matrices[n], states[1].Matrices[n]) {
				t.Errorf("same seed, different matrix %q", n)
			}
		}
	})
}

func TestConformanceConcurrentPredict(t *testing.T) {
	Y, labels := confData(6, confPerClass)
	Yt, _ := confData(7, 5)
	forEachMethod(t, func(t *testing.T, name string) {
		m := newConf(t, name)
		if err := m.Fit(context.Background(), Y, labels); err != nil {
			t.Fatal(err)
		}
		want, err := m.Predict(Yt)
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		errs := make([]error, 8)
		for g := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				got, err := m.PredictContext(context.Background(), Yt)
				if err == nil && !slices.Equal(got, want) {
					err = fmt.Errorf("predicted %v, want %v", got, want)
				}
				errs[g] = err
			}()
		}
		wg.Wait()
		for g, err := range errs {
			if err != nil {
				t.Errorf("goroutine %d: %v", g, err)
			}
		}
	})
}

func TestConformanceProgress(t *testing.T) {
	Y, labels := confData(8, confPerClass)
	forEachMethod(t, func(t *testing.T, name string) {
		m := newConf(t, name)
		var iters []int
		var last lrsdl.Progress
		m.SetProgress(func(p lrsdl.Progress) { iters = append(iters, p.Iter); last = p })
		if err := m.Fit(context.Background(), Y, labels); err != nil {
			t.Fatal(err)
		}
		fi := m.FitInfo()
		if len(iters) == 0 {
			if fi.Iters != 0 {
				t.Errorf("no progress reports for %d iterations", fi.Iters)
			}
			return
		}
		for i, it := range iters {
			if it != i+1 {
				t.Fatalf("progress iterations %v, want 1, 2, …", iters)
			}
		}
		if fi.Iters != len(iters) || last.Stop != fi.Stop || fi.Stop == "" || fi.Stop == lrsdl.StopCancelled {
			t.Errorf("%d progress reports (last stop %q), FitInfo %+v", len(iters), last.Stop, fi)
		}
	})
}
