package methods

import (
	"context"
	"fmt"
	"strconv"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/methods/internal/fisher"
	"github.com/lrsdl/lrsdl/methods/internal/toy"
)

// resumer is what the Fisher models add for resumed training.
type resumer interface {
	lrsdl.Classifier
	lrsdl.Configurable
	FitInfo() lrsdl.FitInfo
	SetResumable(bool)
	suspend()
	Resume(ctx context.Context, Y mat.Matrix, labels []int, iters int) error
	predictEach(ctx context.Context, Y mat.Matrix, sets []map[string]string) ([][]int, error)
}

func resumeModels(o FDDLOptions) map[string]func() resumer {
	return map[string]func() resumer{
		"LRSDL":  func() resumer { return &LRSDL{Options: LRSDLOptions{FDDLOptions: o, K0: 3, Eta: 0.05}} },
		"FDDL":   func() resumer { return &FDDL{Options: o} },
		"D2L2R2": func() resumer { return &D2L2R2{Options: D2L2R2Options{FDDLOptions: o, Alpha: 0.05}} },
	}
}

// fisherOf returns the model inside m.
func fisherOf(m resumer) *fisher.Model {
	switch m := m.(type) {
	case *LRSDL:
		return &m.fm
	case *FDDL:
		return &m.fm
	case *D2L2R2:
		return &m.fm
	}
	panic("not a Fisher model")
}

// sameFit reports how the trained models a and b differ (bit for bit),
// or "".
func sameFit(a, b resumer) string {
	fa, fb := fisherOf(a), fisherOf(b)
	ia, ib := a.FitInfo(), b.FitInfo()
	switch {
	case fa.Db == nil || fb.Db == nil:
		return "untrained"
	case !mat.Equal(fa.Db, fb.Db):
		return fmt.Sprintf("D̄ differs by %g", toy.MaxAbsDiff(fa.Db, fb.Db))
	case !mat.Equal(fa.Mc, fb.Mc):
		return "class means differ"
	case fmt.Sprint(fa.M0) != fmt.Sprint(fb.M0):
		return "shared mean differs"
	case ia.Iters != ib.Iters || ia.Stop != ib.Stop || ia.Cost.Total != ib.Cost.Total:
		return fmt.Sprintf("FitInfo %d %s %.17g, want %d %s %.17g", ia.Iters, ia.Stop, ia.Cost.Total, ib.Iters, ib.Stop, ib.Cost.Total)
	}
	return ""
}

// TestFisherResumeExact checks that Fit to a iterations then Resume to b
// gives the model of Fit to b bit for bit, with and without the span
// reduction, with suspend in between, and in the tolerance-stop case.
func TestFisherResumeExact(t *testing.T) {
	ctx := context.Background()
	for _, d := range []int{60, 12} { // 60×24: reduced to span(Y); 12×24: not
		Y, labels, _ := toy.Shared(3, 8, d, 12)
		for name, mk := range resumeModels(FDDLOptions{K: 4, Seed: 2, Tol: Off}) {
			fit := func(iters int, tol float64) resumer {
				m := mk()
				m.SetResumable(true)
				must(t, m.SetParam("iters", strconv.Itoa(iters)))
				must(t, m.SetParam("tol", fmt.Sprint(tol)))
				must(t, m.Fit(ctx, Y, labels))
				return m
			}
			want := fit(15, 0)
			for _, from := range []int{1, 7, 15} {
				for _, suspend := range []bool{false, true} {
					m := fit(from, 0)
					if suspend {
						m.suspend()
						if _, err := m.Predict(Y); err == nil {
							t.Errorf("%s: suspended model predicts", name)
						}
					}
					must(t, m.Resume(ctx, Y, labels, 15))
					if diff := sameFit(m, want); diff != "" {
						t.Errorf("%s d=%d: Fit(%d)+Resume(15) (suspended %v): %s", name, d, from, suspend, diff)
					}
					if v := CurrentIters(m); v != 15 {
						t.Errorf("%s: iters option %d after Resume(15)", name, v)
					}
				}
			}
			// Two resumes: 3 → 9 → 15.
			m := fit(3, 0)
			must(t, m.Resume(ctx, Y, labels, 9))
			m.suspend()
			must(t, m.Resume(ctx, Y, labels, 15))
			if diff := sameFit(m, want); diff != "" {
				t.Errorf("%s d=%d: Fit(3)+Resume(9)+Resume(15): %s", name, d, diff)
			}
			// Tolerance: the relative change at iteration 6 of a 30-iteration fit.
			var costs []float64
			m = mk()
			must(t, m.SetParam("iters", "30"))
			m.SetProgress(func(p lrsdl.Progress) { costs = append(costs, p.Cost.Total) })
			must(t, m.Fit(ctx, Y, labels))
			tol := 1.0001 * abs(costs[4]-costs[5]) / abs(costs[4])
			ref := fit(30, tol)
			stop := ref.FitInfo().Iters
			if ref.FitInfo().Stop != lrsdl.StopConverged || stop > 6 || stop < 3 {
				t.Fatalf("%s d=%d: tolerance %g stopped at %d (%s), want at 3..6 on its tolerance", name, d, tol, stop, ref.FitInfo().Stop)
			}
			for _, from := range []int{1, stop - 1, stop, stop + 2} {
				m := fit(from, tol)
				m.suspend()
				must(t, m.Resume(ctx, Y, labels, 30))
				if diff := sameFit(m, ref); diff != "" {
					t.Errorf("%s d=%d: tol stop at %d: Fit(%d)+Resume(30): %s", name, d, stop, from, diff)
				}
			}
		}
	}
}

func abs(x float64) float64 { return max(x, -x) }

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// CurrentIters returns the iters option of m.
func CurrentIters(m resumer) int {
	for _, p := range m.Params() {
		if p.Name == "iters" {
			v, _ := strconv.Atoi(p.Value)
			return v
		}
	}
	return -1
}

func TestFisherResumeErrors(t *testing.T) {
	ctx := context.Background()
	Y, labels, _ := toy.Shared(3, 8, 20, 12)
	o := FDDLOptions{K: 4, Iters: 3, Seed: 2}
	m := &LRSDL{Options: LRSDLOptions{FDDLOptions: o}}
	must(t, m.Fit(ctx, Y, labels))
	if err := m.Resume(ctx, Y, labels, 5); err == nil {
		t.Error("Resume without SetResumable")
	}
	m.SetResumable(true)
	must(t, m.Fit(ctx, Y, labels))
	if err := m.Resume(ctx, Y, labels, 2); err == nil {
		t.Error("Resume to fewer iterations")
	}
	Y2 := mat.DenseCopyOf(Y)
	Y2.Set(3, 4, Y2.At(3, 4)+1e-9)
	if err := m.Resume(ctx, Y2, labels, 5); err == nil {
		t.Error("Resume on other data")
	}
	l2 := append([]int(nil), labels...)
	l2[0], l2[1] = l2[1], l2[0]
	if l2[0] != l2[1] {
		if err := m.Resume(ctx, Y, l2, 5); err == nil {
			t.Error("Resume with other labels")
		}
	}
	must(t, m.Resume(ctx, Y, labels, 5))
	if m.FitInfo().Iters != 5 {
		t.Errorf("iters run %d, want 5", m.FitInfo().Iters)
	}
}

// TestFisherPredictEach checks predictEach against setting each point's
// options and calling Predict.
func TestFisherPredictEach(t *testing.T) {
	ctx := context.Background()
	Y, labels, _ := toy.Shared(4, 10, 40, 3)
	Yt, _, _ := toy.Shared(4, 12, 40, 4)
	sets := []map[string]string{
		{"w": "0.25", "lc": "0"}, {"w": "0.5", "lc": "0"}, {"w": "0.25", "lc": "1"}, {"w": "0.5", "lc": "1"},
		{"w": "1", "lambda": "0.002"}, {"lc": "true", "lambda": "0.05"}, {"w": "0", "lc": "false"}, {"w": "0.75", "lambda": "0.05"},
	}
	for name, mk := range resumeModels(FDDLOptions{K: 5, Iters: 4, Seed: 7, Lambda1: 0.01}) {
		m := mk()
		must(t, m.Fit(ctx, Y, labels))
		got, err := m.predictEach(ctx, Yt, sets)
		if err != nil {
			t.Fatal(err)
		}
		differ := false
		for i, set := range sets {
			one := mk()
			one.(interface{ SetState(*lrsdl.State) error }).SetState(mustState(t, m))
			for n, v := range set {
				must(t, one.SetParam(n, v))
			}
			want, err := one.Predict(Yt)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got[i]) != fmt.Sprint(want) {
				t.Errorf("%s: PredictEach %v: %v, Predict %v", name, set, got[i], want)
			}
			differ = differ || fmt.Sprint(want) != fmt.Sprint(got[0])
		}
		if !differ {
			t.Errorf("%s: every rule predicts the same; the test cannot tell them apart", name)
		}
		if _, err := m.predictEach(ctx, Yt, []map[string]string{{"k": "3"}}); err == nil {
			t.Errorf("%s: PredictEach set a training option", name)
		}
	}
}

func mustState(t *testing.T, m resumer) *lrsdl.State {
	s, err := m.(interface{ State() (*lrsdl.State, error) }).State()
	must(t, err)
	return s
}
