package methods

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/james-bowman/sparse"
	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/internal/testutil"
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

// TestConformanceOptionsUnchanged checks that Fit leaves Options alone and
// that a refit resolves anew: a model fitted on 8 samples per class and
// then on 60 equals one fitted on the 60 alone, bit for bit. The options
// keep their data-aware defaults (k), with few iterations.
func TestConformanceOptionsUnchanged(t *testing.T) {
	Ys, ls := confData(21, 8)
	Yl, ll := confData(22, 60)
	Yt, _ := confData(23, 3)
	forEachMethod(t, func(t *testing.T, name string) {
		fresh := func() confMethod {
			m, err := New(name)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range m.Params() {
				if p.Type == "int" && strings.HasSuffix(p.Name, "iters") {
					if err := m.SetParam(p.Name, "2"); err != nil {
						t.Fatal(err)
					}
				}
			}
			return m
		}
		m := fresh()
		before := optionsOf(m)
		if err := m.Fit(context.Background(), Ys, ls); err != nil {
			t.Fatal(err)
		}
		if after := optionsOf(m); !reflect.DeepEqual(before, after) {
			t.Errorf("Fit changed Options from %+v to %+v", before, after)
		}
		if err := m.Fit(context.Background(), Yl, ll); err != nil {
			t.Fatal(err)
		}
		f := fresh()
		if err := f.Fit(context.Background(), Yl, ll); err != nil {
			t.Fatal(err)
		}
		sameModel(t, m, f, Yt)
	})
}

// optionsOf returns a copy of the Options field of m, without functions.
func optionsOf(m confMethod) any {
	v := reflect.ValueOf(m).Elem().FieldByName("Options")
	s, err := json.Marshal(v.Interface())
	if err != nil {
		panic(err)
	}
	return string(s)
}

// sameModel fails t unless a and b have equal states and predictions on Y.
func sameModel(t *testing.T, a, b confMethod, Y mat.Matrix) {
	t.Helper()
	sa, err := a.State()
	if err != nil {
		t.Fatal(err)
	}
	sb, err := b.State()
	if err != nil {
		t.Fatal(err)
	}
	if string(sa.Options) != string(sb.Options) || !slices.Equal(sa.Names, sb.Names) {
		t.Errorf("options %s, want %s", sa.Options, sb.Options)
	}
	for _, n := range sb.Names {
		if !mat.Equal(sa.Matrices[n], sb.Matrices[n]) {
			t.Errorf("matrix %q differs", n)
		}
	}
	pa, err := a.Predict(Y)
	if err != nil {
		t.Fatal(err)
	}
	pb, err := b.Predict(Y)
	if err != nil || !slices.Equal(pa, pb) {
		t.Errorf("predictions %v, want %v (%v)", pa, pb, err)
	}
}

// TestConformanceCalibrate checks that Calibrate sets a positive finite
// temperature, that PredictProba follows it and that State keeps it.
func TestConformanceCalibrate(t *testing.T) {
	Y, labels := confData(31, confPerClass)
	Yt, _ := confData(32, 3)
	forEachMethod(t, func(t *testing.T, name string) {
		m := newConf(t, name)
		if err := m.Fit(context.Background(), Y, labels); err != nil {
			t.Fatal(err)
		}
		T, err := Calibrate(context.Background(), m, Y, labels, 3)
		if err != nil {
			t.Fatal(err)
		}
		if !(T > 0) || math.IsInf(T, 0) {
			t.Fatalf("temperature %g", T)
		}
		S, err := m.DecisionFunction(Yt)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := softmax(S, T)
		P, err := m.PredictProba(Yt)
		if err != nil || !mat.Equal(P, want) {
			t.Errorf("PredictProba is not softmax(scores/%g) (%v)", T, err)
		}
		s, err := m.State()
		if err != nil {
			t.Fatal(err)
		}
		r := newConf(t, name)
		if err := r.SetState(s); err != nil {
			t.Fatal(err)
		}
		Pr, err := r.PredictProba(Yt)
		if err != nil || !mat.Equal(Pr, P) {
			t.Errorf("restored model's probabilities differ (%v)", err)
		}
	})
}

func TestFitTemperature(t *testing.T) {
	// Two classes, scores ±1, the true class first in 3 of 4: the
	// likelihood is largest at p = 3/4 = 1/(1 + e^{−2/T}), T = 2/ln 3.
	scores := [][]float64{{1, -1}, {1, -1}, {1, -1}, {-1, 1}}
	truth := []int{0, 0, 0, 0}
	if got, want := fitTemperature(scores, truth), 2/math.Log(3); math.Abs(got-want) > 1e-9 {
		t.Errorf("temperature %g, want %g", got, want)
	}
}

// TestConformanceScale checks that a model normalises by default: data
// scaled by 1e-3 or 1e3 give the predictions of unit-norm data.
func TestConformanceScale(t *testing.T) {
	Y, labels := confData(41, confPerClass)
	Yt, _ := confData(42, 4)
	Yn, Ytn := normalized(Y, true), normalized(Yt, true)
	forEachMethod(t, func(t *testing.T, name string) {
		m := newConf(t, name)
		if err := m.Fit(context.Background(), Yn, labels); err != nil {
			t.Fatal(err)
		}
		want, err := m.Predict(Ytn)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range []float64{1e-3, 1e3} {
			var Ys, Yts mat.Dense
			Ys.Scale(f, Y)
			Yts.Scale(f, Yt)
			m := newConf(t, name)
			if err := m.Fit(context.Background(), &Ys, labels); err != nil {
				t.Fatalf("×%g: %v", f, err)
			}
			got, err := m.Predict(&Yts)
			if err != nil || !slices.Equal(got, want) {
				t.Errorf("×%g: predictions %v (%v), want %v", f, got, err, want)
			}
		}
	})
}

// TestConformanceBadSparse checks that malformed sparse input is an error
// naming the fault, not a panic, in Fit and Predict.
func TestConformanceBadSparse(t *testing.T) {
	Y, labels := confData(51, confPerClass)
	_, n := Y.Dims()
	bad := func(row0 int, ind1 int) *sparse.CSC {
		indptr := make([]int, n+1)
		var ind []int
		var data []float64
		for j := 0; j < n; j++ {
			ind, data = append(ind, row0, ind1), append(data, 1, float64(j%3+1))
			indptr[j+1] = len(ind)
		}
		return sparse.NewCSC(confDim, n, indptr, ind, data)
	}
	for _, c := range []struct {
		name string
		Y    *sparse.CSC
		want string
	}{{"row out of range", bad(0, confDim), "out of range"}, {"duplicate rows", bad(2, 2), "twice"}} {
		forEachMethod(t, func(t *testing.T, name string) {
			m := newConf(t, name)
			var err error
			noPanic(t, "Fit", func() { err = m.Fit(context.Background(), c.Y, labels) })
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: Fit: %v, want %q", c.name, err, c.want)
			}
			if err := m.Fit(context.Background(), Y, labels); err != nil {
				t.Fatal(err)
			}
			noPanic(t, "Predict", func() { _, err = m.Predict(c.Y) })
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: Predict: %v, want %q", c.name, err, c.want)
			}
		})
	}
}

// TestConformanceModelFile checks the round trip of every trained,
// calibrated model through Save and Load and through SaveFile and
// LoadFile: the state (matrices, options, classes, temperature), the
// labels, scores, probabilities and codes come back bit for bit. Saving
// an untrained model is an error naming the method.
func TestConformanceModelFile(t *testing.T) {
	Y, labels := confData(61, confPerClass)
	Yt, _ := confData(62, 3)
	forEachMethod(t, func(t *testing.T, name string) {
		m := newConf(t, name)
		if err := Save(io.Discard, m); !errors.Is(err, ErrNotTrained) || !strings.Contains(err.Error(), name+" has nothing to save") {
			t.Errorf("Save before Fit: %v", err)
		}
		if err := m.Fit(context.Background(), Y, labels); err != nil {
			t.Fatal(err)
		}
		if _, err := Calibrate(context.Background(), m, Y, labels, 3); err != nil {
			t.Fatal(err)
		}
		want, err := m.State()
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := Save(&buf, m); err != nil {
			t.Fatal(err)
		}
		viaReader, err := Load(&buf)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "m.model")
		if err := SaveFile(path, m); err != nil {
			t.Fatal(err)
		}
		viaPath, err := LoadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		answers := func(m lrsdl.Model) []any {
			pred, err1 := m.Predict(Yt)
			S, err2 := m.DecisionFunction(Yt)
			P, err3 := m.PredictProba(Yt)
			X, err4 := m.Transform(Yt)
			if err := errors.Join(err1, err2, err3, err4); err != nil {
				t.Fatal(err)
			}
			return []any{pred, S, P, X}
		}
		a := answers(m)
		for i, r := range []lrsdl.Model{viaReader, viaPath} {
			got, err := r.State()
			if err != nil {
				t.Fatal(err)
			}
			if err := sameState(got, want); err != nil {
				t.Errorf("pair %d: %v", i+1, err)
			}
			b := answers(r)
			if !slices.Equal(a[0].([]int), b[0].([]int)) {
				t.Errorf("pair %d: Predict %v, want %v", i+1, b[0], a[0])
			}
			for k, what := range []string{"DecisionFunction", "PredictProba", "Transform"} {
				if !testutil.EqualBits(a[k+1].(*mat.Dense), b[k+1].(*mat.Dense)) {
					t.Errorf("pair %d: %s differs", i+1, what)
				}
			}
		}
	})
}

// sameState returns an error unless a and b are equal bit for bit.
func sameState(a, b *lrsdl.State) error {
	switch {
	case a.Method != b.Method:
		return fmt.Errorf("method %s, want %s", a.Method, b.Method)
	case !bytes.Equal(a.Options, b.Options):
		return fmt.Errorf("options %s, want %s", a.Options, b.Options)
	case !slices.Equal(a.Classes, b.Classes):
		return fmt.Errorf("classes %v, want %v", a.Classes, b.Classes)
	case math.Float64bits(a.Temperature) != math.Float64bits(b.Temperature):
		return fmt.Errorf("temperature %v, want %v", a.Temperature, b.Temperature)
	case !slices.Equal(a.Names, b.Names) || len(a.Matrices) != len(b.Matrices):
		return fmt.Errorf("matrices %v, want %v", a.Names, b.Names)
	}
	for _, n := range b.Names {
		if !testutil.EqualBits(a.Matrices[n], b.Matrices[n]) {
			return fmt.Errorf("matrix %s differs", n)
		}
	}
	return nil
}
