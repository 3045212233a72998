package methods

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestConformanceModel checks the scores, probabilities, codes and classes
// of every method against its Predict and State, and their concurrent use
// (run it with -race).
func TestConformanceModel(t *testing.T) {
	Y, labels := confData(11, confPerClass)
	Yt, _ := confData(12, 5)
	forEachMethod(t, func(t *testing.T, name string) {
		m := newConf(t, name)
		if m.Name() != name {
			t.Errorf("Name() = %q, registered as %q", m.Name(), name)
		}
		if _, err := m.DecisionFunction(Yt); err == nil {
			t.Error("DecisionFunction before Fit: no error")
		}
		if m.Classes() != nil {
			t.Errorf("Classes() before Fit = %v", m.Classes())
		}
		if err := m.Fit(context.Background(), Y, labels); err != nil {
			t.Fatal(err)
		}
		cl := m.Classes()
		s, err := m.State()
		if err != nil {
			t.Fatal(err)
		}
		if !slices.IsSorted(cl) || !slices.Equal(cl, s.Classes) || len(cl) != confClasses {
			t.Errorf("Classes() = %v, state's %v", cl, s.Classes)
		}
		_, n := Yt.Dims()
		pred, err := m.Predict(Yt)
		if err != nil {
			t.Fatal(err)
		}
		S, err := m.DecisionFunction(Yt)
		if err != nil {
			t.Fatal(err)
		}
		if r, c := S.Dims(); r != len(cl) || c != n {
			t.Fatalf("DecisionFunction is %d×%d, want %d×%d", r, c, len(cl), n)
		}
		for j := 0; j < n; j++ {
			best := 0
			for c := 1; c < len(cl); c++ {
				if S.At(c, j) > S.At(best, j) {
					best = c
				}
			}
			if cl[best] != pred[j] {
				t.Errorf("sample %d: arg-max of scores %v is %d, Predict %d", j, mat.Col(nil, j, S), cl[best], pred[j])
			}
		}
		P, err := m.PredictProba(Yt)
		if err != nil {
			t.Fatal(err)
		}
		if r, c := P.Dims(); r != len(cl) || c != n {
			t.Fatalf("PredictProba is %d×%d, want %d×%d", r, c, len(cl), n)
		}
		for j := 0; j < n; j++ {
			var sum float64
			for c := range cl {
				p := P.At(c, j)
				if !(p >= 0 && p <= 1) {
					t.Errorf("probability %g", p)
				}
				sum += p
			}
			if math.Abs(sum-1) > 1e-12 {
				t.Errorf("sample %d: probabilities sum to %.17g", j, sum)
			}
		}
		X, err := m.Transform(Yt)
		if err != nil {
			t.Fatal(err)
		}
		if _, c := X.Dims(); c != n {
			t.Errorf("Transform has %d columns, want %d", c, n)
		}
		// Concurrent use of a trained model gives the same answers.
		var wg sync.WaitGroup
		errs := make([]error, 4)
		for g := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[g] = sameAnswers(m, Yt, pred, S, P, X)
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

// sameAnswers returns an error unless m gives pred, S, P and X on Y again.
func sameAnswers(m confMethod, Y mat.Matrix, pred []int, S, P, X *mat.Dense) error {
	got, err := m.PredictContext(context.Background(), Y)
	if err != nil || !slices.Equal(got, pred) {
		return fmt.Errorf("Predict %v (%v), want %v", got, err, pred)
	}
	for _, c := range []struct {
		name string
		f    func(mat.Matrix) (*mat.Dense, error)
		want *mat.Dense
	}{{"DecisionFunction", m.DecisionFunction, S}, {"PredictProba", m.PredictProba, P}, {"Transform", m.Transform, X}} {
		a, err := c.f(Y)
		if err != nil || !mat.Equal(a, c.want) {
			return fmt.Errorf("%s differs (%v)", c.name, err)
		}
	}
	return nil
}
