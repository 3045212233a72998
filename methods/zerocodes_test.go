package methods

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/internal/testutil"
)

// l1Spec returns the option declarations of m (a pointer to a model with
// an Options field).
func l1Spec(m lrsdl.Model) optSpec {
	return reflect.ValueOf(m).Elem().FieldByName("Options").Addr().Interface().(interface{ spec() optSpec }).spec()
}

// l1Options returns the options of m whose weight bounds every code.
func l1Options(m lrsdl.Model) []opt {
	var os []opt
	for _, o := range l1Spec(m).opts {
		if o.zeroAt > 0 {
			os = append(os, o)
		}
	}
	return os
}

// untrained fails t unless m behaves as an untrained model that never
// said converged.
func untrained(t *testing.T, m lrsdl.Model, Y mat.Matrix) {
	t.Helper()
	if _, err := m.Predict(Y); !errors.Is(err, ErrNotTrained) {
		t.Errorf("Predict after the failed Fit: %v, want ErrNotTrained", err)
	}
	if m.Classes() != nil {
		t.Errorf("Classes after the failed Fit: %v", m.Classes())
	}
	if s := m.FitInfo().Stop; s == lrsdl.StopConverged {
		t.Errorf("FitInfo says %q after the failed Fit", s)
	}
}

// TestZeroCodesAtTheBound sets every ℓ1 weight of every method at its
// bound on unit-norm samples, where ‖Dᵀy‖∞ ≤ 1 makes every code 0: Fit
// must refuse, naming the option.
func TestZeroCodesAtTheBound(t *testing.T) {
	Y, labels := confData(3, confPerClass)
	n := 0
	forEachMethod(t, func(t *testing.T, name string) {
		for _, o := range l1Options(newConf(t, name)) {
			n++
			m := newConf(t, name)
			if err := m.SetParam(o.name, fmtNum(o.zeroAt)); err != nil {
				t.Fatal(err)
			}
			err := m.Fit(context.Background(), Y, labels)
			if err == nil || !strings.Contains(err.Error(), o.name+"=") || !strings.Contains(err.Error(), "every code is 0") {
				t.Errorf("%s=%g: %v", o.name, o.zeroAt, err)
			}
			untrained(t, m, Y)
		}
	})
	if n < 10 {
		t.Errorf("%d ℓ1 weights checked, want every method's", n)
	}
}

// TestZeroCodesSmallSamples is the user's case: samples ×1e-3, not
// normalised, at default options. Every method with an ℓ1 weight must
// refuse, naming the weight and the scale; none may report a converged
// model.
func TestZeroCodesSmallSamples(t *testing.T) {
	Y, labels := confData(3, confPerClass)
	var Ys mat.Dense
	Ys.Scale(1e-3, normalized(Y, true))
	forEachMethod(t, func(t *testing.T, name string) {
		m := newConf(t, name)
		os := l1Options(m)
		if len(os) == 0 {
			t.Skip("no ℓ1 weight")
		}
		if err := m.SetParam("no_normalize", "true"); err != nil {
			t.Fatal(err)
		}
		err := m.Fit(context.Background(), &Ys, labels)
		if err == nil {
			// Below the bound (DLSI's is 2‖y‖): the codes must not be 0.
			if X, err := m.Transform(&Ys); err != nil || allZero(X) {
				t.Errorf("×1e-3: Fit succeeded with all-zero codes (%v)", err)
			}
			return
		}
		if !strings.Contains(err.Error(), "lambda") || !strings.Contains(err.Error(), "0.001") {
			t.Errorf("×1e-3: %v, want an error naming λ and the scale 0.001", err)
		}
		untrained(t, m, &Ys)
	})
}

// TestZeroCodesDefaults checks that no method refuses normalised data at
// its defaults.
func TestZeroCodesDefaults(t *testing.T) {
	Y, labels := confData(5, confPerClass)
	forEachMethod(t, func(t *testing.T, name string) {
		m := newConf(t, name)
		if err := m.Fit(context.Background(), Y, labels); err != nil {
			t.Fatal(err)
		}
		X, err := m.Transform(Y)
		if err != nil || allZero(X) {
			t.Errorf("Transform: all zero or %v", err)
		}
	})
}

// TestZeroCodesObserved trains with a prediction weight just below its
// bound, where the bound does not apply but every code of these samples
// is 0: Fit must refuse, naming the weights and the scale, and leave the
// model untrained with its options.
func TestZeroCodesObserved(t *testing.T) {
	Y, labels := confData(1, 8)
	for _, name := range []string{"FDDL", "LRSDL", "COPAR", "JDL"} {
		m := newConf(t, name)
		if err := m.SetParam("lambda", "0.999"); err != nil {
			t.Fatal(err)
		}
		before := mat.DenseCopyOf(Y)
		opts := reflect.ValueOf(m).Elem().FieldByName("Options").Interface()
		err := m.Fit(context.Background(), Y, labels)
		if err == nil || !strings.Contains(err.Error(), "learned nothing") || !strings.Contains(err.Error(), "lambda=0.999") ||
			!strings.Contains(err.Error(), "largest norm 1") {
			t.Errorf("%s: %v", name, err)
		}
		untrained(t, m, Y)
		if !mat.Equal(before, Y) || !reflect.DeepEqual(fmtOpts(opts), fmtOpts(reflect.ValueOf(m).Elem().FieldByName("Options").Interface())) {
			t.Errorf("%s: the failed Fit changed its data or options", name)
		}
		if m.Name() != name {
			t.Errorf("%s became %s", name, m.Name())
		}
	}
}

// TestZeroCodesUntrain runs fitCodes with a transform that codes every
// sample as 0, for every method that checks its codes: the error names
// the ℓ1 weights, the model is untrained and keeps its name and options.
func TestZeroCodesUntrain(t *testing.T) {
	Y, labels := confData(7, confPerClass)
	zero := func(Y mat.Matrix) (*mat.Dense, error) { _, n := Y.Dims(); return mat.NewDense(2, n, nil), nil }
	forEachMethod(t, func(t *testing.T, name string) {
		m := newConf(t, name)
		os := l1Options(m)
		if len(os) == 0 || name == "SRC" {
			t.Skip("does not check its codes")
		}
		err := fitCodes(context.Background(), m, l1Spec(m), Y, labels, m.Fit, zero)
		for _, o := range os {
			if err == nil || !strings.Contains(err.Error(), o.name+"=") {
				t.Errorf("%v, want it to name %s", err, o.name)
			}
		}
		untrained(t, m, Y)
		if m.Name() != name {
			t.Errorf("became %s", m.Name())
		}
		if err := m.Fit(context.Background(), Y, labels); err != nil {
			t.Errorf("refit: %v", err)
		}
	})
}

// fmtOpts renders options without their function fields.
func fmtOpts(o any) string {
	v := reflect.ValueOf(o)
	var b strings.Builder
	for i := 0; i < v.NumField(); i++ {
		if v.Field(i).Kind() != reflect.Func {
			fmt.Fprintf(&b, "%s=%v ", v.Type().Field(i).Name, v.Field(i).Interface())
		}
	}
	return b.String()
}

// TestOverflowIsAnError codes finite samples scaled by 1e200 (not
// normalised), whose squares overflow: Predict, DecisionFunction and
// Transform must each return an error saying the values are not finite,
// or finite results with the labels of the unscaled samples (SRRS, whose
// projection does not square them). Both small options and the defaults
// (k = 4) are tried, as they take different solvers.
func TestOverflowIsAnError(t *testing.T) {
	Y, labels := confData(11, confPerClass)
	Yn := normalized(Y, true)
	var Yb mat.Dense
	Yb.Scale(1e200, Yn)
	forEachMethod(t, func(t *testing.T, name string) {
		def, _ := New(name)
		if hasParam(def, "k") {
			must(t, def.SetParam("k", "4"))
		}
		if hasParam(def, "sparsity") {
			must(t, def.SetParam("sparsity", "4"))
		}
		for _, m := range []lrsdl.Model{newConf(t, name), def} {
			must(t, m.SetParam("no_normalize", "true"))
			must(t, m.Fit(context.Background(), Yn, labels))
			want, err := m.Predict(Yn)
			must(t, err)
			ok := func(what string, err error, finite bool) {
				if err != nil && !strings.Contains(err.Error(), "not finite") || err == nil && !finite {
					t.Errorf("%s on ×1e200: %v", what, err)
				}
			}
			got, err := m.Predict(&Yb)
			ok("Predict", err, slices.Equal(got, want))
			S, err := m.DecisionFunction(&Yb)
			ok("DecisionFunction", err, err == nil && finiteMat(S))
			X, err := m.Transform(&Yb)
			ok("Transform", err, err == nil && finiteMat(X))
		}
	})
}

// finiteMat reports whether every entry of A is finite.
func finiteMat(A *mat.Dense) bool {
	r, c := A.Dims()
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			if v := A.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
				return false
			}
		}
	}
	return true
}

// TestFitCancelledAtEveryCheck cancels LRSDL's and FDDL's Fit at their
// checks of the context in turn, the initialisation (core.LearnDictFrom)
// included: each must return context.Canceled and leave the model
// untrained.
func TestFitCancelledAtEveryCheck(t *testing.T) {
	Y, labels := confData(13, confPerClass)
	for _, name := range []string{"LRSDL", "FDDL"} {
		probe := &testutil.CancelAt{Context: context.Background(), At: 1 << 62}
		must(t, newConf(t, name).Fit(probe, Y, labels))
		total := probe.N.Load()
		for at := int64(1); at <= total; at += max(1, total/60) {
			m := newConf(t, name)
			if err := m.Fit(&testutil.CancelAt{Context: context.Background(), At: at}, Y, labels); !errors.Is(err, context.Canceled) {
				t.Fatalf("%s cancelled at check %d of %d: %v", name, at, total, err)
			}
			if m.Classes() != nil {
				t.Errorf("%s cancelled at check %d: trained", name, at)
			}
		}
	}
}

// TestSRRSCancelDuringStep cancels SRRS from a goroutine started by its
// first progress report, so that the cancellation lands before or during
// a later ALM step: Fit must return context.Canceled, untrained.
func TestSRRSCancelDuringStep(t *testing.T) {
	Y, labels := confData(17, 10)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m := &SRRS{Options: SRRSOptions{Iters: 1000, Tol: Off}}
	m.SetProgress(func(lrsdl.Progress) { go cancel() })
	if err := m.Fit(ctx, Y, labels); !errors.Is(err, context.Canceled) {
		t.Fatalf("Fit: %v, want context.Canceled", err)
	}
	if m.Classes() != nil || m.FitInfo().Stop != lrsdl.StopCancelled {
		t.Errorf("after the cancellation: classes %v, stop %q", m.Classes(), m.FitInfo().Stop)
	}
}
