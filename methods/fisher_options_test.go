package methods

import (
	"cmp"
	"context"
	"errors"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/methods/internal/toy"
)

// fisherMethod is what FDDL, LRSDL and D2L2R2 have in common.
type fisherMethod interface {
	lrsdl.Classifier
	lrsdl.Configurable
	lrsdl.Fitted
	lrsdl.ContextPredictor
	lrsdl.Persistent
	costContext(ctx context.Context, Y mat.Matrix, labels []int) (lrsdl.Cost, error)
}

// fisherModels returns new FDDL, LRSDL and D2L2R2 models with options set
// by set (applied to their FDDL options) and k0 = 2 for LRSDL.
func fisherModels(set func(o *FDDLOptions)) []fisherMethod {
	f, l, d := &FDDL{}, &LRSDL{Options: LRSDLOptions{K0: 2}}, &D2L2R2{}
	for _, o := range []*FDDLOptions{&f.Options, &l.Options.FDDLOptions, &d.Options.FDDLOptions} {
		o.Iters, o.InitIters = 3, 2
		set(o)
	}
	return []fisherMethod{f, l, d}
}

func param(ps []lrsdl.Param, name string) lrsdl.Param {
	for _, p := range ps {
		if p.Name == name {
			return p
		}
	}
	return lrsdl.Param{}
}

// TestFisherXItersFollowsLambda1 checks x_iters' default: 20 for FDDL and
// D2L2R2 at λ1 ≤ 0.001 and 50 above, 20 for LRSDL at any λ1, and an
// explicit value kept whatever λ1.
func TestFisherXItersFollowsLambda1(t *testing.T) {
	Y, labels, _ := toy.Shared(3, 5, 10, 1)
	for _, c := range []struct {
		lambda1 float64
		xIters  int
		want    map[string]string // by method; "" means FDDL's and D2L2R2's
	}{
		{0.001, 0, map[string]string{"": "20", "LRSDL": "20"}},
		{0.0005, 0, map[string]string{"": "20", "LRSDL": "20"}},
		{0.002, 0, map[string]string{"": "50", "LRSDL": "20"}},
		{0, 0, map[string]string{"": "50", "LRSDL": "20"}},
		{0.001, 50, map[string]string{"": "50", "LRSDL": "50"}},
		{0.01, 7, map[string]string{"": "7", "LRSDL": "7"}},
	} {
		for _, m := range fisherModels(func(o *FDDLOptions) { o.Lambda1, o.XIters = c.lambda1, c.xIters }) {
			if err := m.Fit(context.Background(), Y, labels); err != nil {
				t.Fatalf("%s: %v", m.Name(), err)
			}
			want := cmp.Or(c.want[m.Name()], c.want[""])
			if got := param(m.Params(), "x_iters").Value; got != want {
				t.Errorf("%s at lambda1=%v, x_iters=%d: resolved x_iters = %q, want %q", m.Name(), c.lambda1, c.xIters, got, want)
			}
		}
	}
	var o FDDLOptions
	if got, want := param(o.spec().params(), "x_iters").Default, "50, or 20 at lambda1 ≤ 0.001"; got != want {
		t.Errorf("FDDL x_iters default documented as %q, want %q", got, want)
	}
	var l LRSDLOptions
	if got := param(l.spec().params(), "x_iters").Default; got != "20" {
		t.Errorf("LRSDL x_iters default documented as %q, want 20", got)
	}
}

// TestFisherOptionsResolved checks the options contract: k defaults to the
// smallest class when that is below 20, an explicit k above it and
// negative values other than Off are errors naming the option, Fit stores
// the resolved options, which State saves and SetState restores.
func TestFisherOptionsResolved(t *testing.T) {
	Y, labels, _ := toy.Shared(3, 5, 10, 1)
	ctx := context.Background()
	for _, m := range fisherModels(func(*FDDLOptions) {}) {
		if err := m.Fit(ctx, Y, labels); err != nil {
			t.Fatalf("%s: %v", m.Name(), err)
		}
		ps := m.Params()
		for name, want := range map[string]string{"k": "5", "lambda1": "0.01", "tol": "0.0001", "w": "0.5", "lambda": "0.01", "d_iters": "5"} {
			if got := param(ps, name).Value; got != want {
				t.Errorf("%s: resolved %s = %q, want %q", m.Name(), name, got, want)
			}
		}
		// The per-method defaults chosen by cross-validation (bench/README).
		xIters, admmIters := map[string]string{"LRSDL": "20"}[m.Name()], map[string]string{"D2L2R2": "2"}[m.Name()]
		if got, want := param(ps, "x_iters").Value, cmp.Or(xIters, "50"); got != want {
			t.Errorf("%s: resolved x_iters = %q, want %q", m.Name(), got, want)
		}
		if m.Name() == "FDDL" { // no nuclear norm, no ADMM
			if p := param(ps, "admm_iters"); p != (lrsdl.Param{}) {
				t.Errorf("FDDL lists admm_iters: %+v", p)
			}
			if err := m.(lrsdl.Configurable).SetParam("admm_iters", "5"); err == nil || !strings.Contains(err.Error(), `"admm_iters"`) {
				t.Errorf("FDDL SetParam(admm_iters): %v, want an error naming it", err)
			}
		} else if got, want := param(ps, "admm_iters").Value, cmp.Or(admmIters, "20"); got != want {
			t.Errorf("%s: resolved admm_iters = %q, want %q", m.Name(), got, want)
		}
		s, err := m.State()
		if err != nil {
			t.Fatal(err)
		}
		r := fisherModels(func(o *FDDLOptions) { o.K = 1 })[map[string]int{"FDDL": 0, "LRSDL": 1, "D2L2R2": 2}[m.Name()]]
		if err := r.SetState(s); err != nil {
			t.Fatalf("%s: %v", m.Name(), err)
		}
		for i, p := range r.Params() {
			if p != ps[i] {
				t.Errorf("%s: option %s after SetState: %+v, want %+v", m.Name(), p.Name, p, ps[i])
			}
		}
		if m.Name() == "FDDL" { // saved when FDDL listed admm_iters (resolved to 20)
			old := *s
			old.Options = []byte(strings.Replace(string(s.Options), `"admm_iters":0`, `"admm_iters":20`, 1))
			if string(old.Options) == string(s.Options) {
				t.Fatalf("FDDL state options %s: no admm_iters to set", s.Options)
			}
			if err := r.SetState(&old); err != nil {
				t.Errorf("FDDL state with admm_iters 20: %v", err)
			}
		}
	}
	for _, c := range []struct {
		set  func(o *FDDLOptions)
		want string
	}{
		{func(o *FDDLOptions) { o.K = 6 }, "k=6"},
		{func(o *FDDLOptions) { o.Lambda2 = -2 }, "lambda2=-2"},
		{func(o *FDDLOptions) { o.Tol = -0.5 }, "tol=-0.5"},
		{func(o *FDDLOptions) { o.Lambda1 = Off }, "lambda1=-1"},
		{func(o *FDDLOptions) { o.W = 1.5 }, "w=1.5"},
	} {
		for _, m := range fisherModels(c.set) {
			err := m.Fit(ctx, Y, labels)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), m.Name()) {
				t.Errorf("%s: Fit with %s returned %v", m.Name(), c.want, err)
			}
		}
	}
	l := &LRSDL{Options: LRSDLOptions{K0: 16}}
	if err := l.Fit(ctx, Y, labels); err == nil || !strings.Contains(err.Error(), "k0=16") {
		t.Errorf("LRSDL with k0 above the 15 samples: %v", err)
	}
	l = &LRSDL{Options: LRSDLOptions{K0: Off, Eta: Off, FDDLOptions: FDDLOptions{Iters: 1}}}
	if err := l.Fit(ctx, Y, labels); err != nil {
		t.Fatal(err)
	}
	if _, _, D0 := l.Atoms(); D0 != nil || param(l.Params(), "k0").Value != "0" {
		t.Errorf("LRSDL with k0=Off has a shared dictionary or lists k0=%q", param(l.Params(), "k0").Value)
	}
}

// TestFisherNotTrained checks that every call needing a model returns
// ErrNotTrained before Fit.
func TestFisherNotTrained(t *testing.T) {
	Y, labels, _ := toy.Shared(3, 5, 10, 1)
	ctx := context.Background()
	for _, m := range fisherModels(func(*FDDLOptions) {}) {
		_, err1 := m.PredictContext(ctx, Y)
		_, err2 := m.costContext(ctx, Y, labels)
		_, err3 := m.State()
		for i, err := range []error{err1, err2, err3} {
			if !errors.Is(err, ErrNotTrained) {
				t.Errorf("%s: call %d before Fit returned %v", m.Name(), i, err)
			}
		}
	}
}

// TestFisherFitInfo checks that a Fit stopped by the tolerance reports
// StopConverged and its iterations, never before iteration 2 (a tolerance
// of 0.5 stops every run there), and that Off runs every iteration.
func TestFisherFitInfo(t *testing.T) {
	Y, labels, _ := toy.Shared(3, 5, 10, 1)
	ctx := context.Background()
	for _, c := range []struct {
		tol   float64
		iters int
		stop  lrsdl.StopReason
	}{{0.5, 2, lrsdl.StopConverged}, {Off, 3, lrsdl.StopMaxIters}} {
		for _, m := range fisherModels(func(o *FDDLOptions) { o.Tol = c.tol }) {
			var last lrsdl.Progress
			calls := 0
			m.SetProgress(func(p lrsdl.Progress) { last, calls = p, calls+1 })
			if err := m.Fit(ctx, Y, labels); err != nil {
				t.Fatal(err)
			}
			fi := m.FitInfo()
			if fi.Iters != c.iters || fi.Stop != c.stop || calls != c.iters || last.Stop != c.stop || fi.Cost.Total != last.Cost.Total || fi.Elapsed <= 0 {
				t.Errorf("%s, tol %v: FitInfo %+v after %d progress calls (last %+v), want %d iterations, %s",
					m.Name(), c.tol, fi, calls, last, c.iters, c.stop)
			}
		}
	}
}

// TestFisherContextCancelled checks that Fit, PredictContext and
// costContext return the context's error when it is cancelled, Fit with
// FitInfo saying so.
func TestFisherContextCancelled(t *testing.T) {
	Y, labels, _ := toy.Shared(3, 5, 10, 1)
	ctx, cancel := context.WithCancel(context.Background())
	for _, m := range fisherModels(func(*FDDLOptions) {}) {
		if err := m.Fit(context.Background(), Y, labels); err != nil {
			t.Fatal(err)
		}
		cancel()
		_, err1 := m.PredictContext(ctx, Y)
		_, err2 := m.costContext(ctx, Y, labels)
		for i, err := range []error{err1, err2} {
			if !errors.Is(err, context.Canceled) {
				t.Errorf("%s: call %d with a cancelled context returned %v", m.Name(), i, err)
			}
		}
		n := 0
		m.SetProgress(func(lrsdl.Progress) {
			if n++; n == 1 {
				cancel()
			}
		})
		ctx, cancel = context.WithCancel(context.Background())
		if err := m.Fit(ctx, Y, labels); !errors.Is(err, context.Canceled) || m.FitInfo().Stop != lrsdl.StopCancelled || m.FitInfo().Iters != 1 {
			t.Errorf("%s: Fit cancelled after iteration 1 returned %v, FitInfo %+v", m.Name(), err, m.FitInfo())
		}
		ctx, cancel = context.WithCancel(context.Background())
	}
	cancel()
}
