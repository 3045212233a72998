package eval

import (
	"context"
	"fmt"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/split"
)

// cvFake scores a known quality: it labels the first quality·n validation
// samples right (feature 0 holds the label) and the rest wrong, where
// quality grows with a and iters and peaks at p = 2; p acts only at
// prediction. It counts its fits.
type cvFake struct {
	k, iters int
	a, p     float64
	fits     *atomic.Int64
	trainedK int
}

func (f *cvFake) Name() string { return "CVFAKE" }

func (f *cvFake) Params() []lrsdl.Param {
	return []lrsdl.Param{
		{Name: "a", Type: "float"}, {Name: "iters", Type: "int", Value: strconv.Itoa(f.iters)},
		{Name: "k", Type: "int"}, {Name: "p", Type: "float", Predict: true},
	}
}

func (f *cvFake) SetParam(name, v string) error {
	x, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return err
	}
	switch name {
	case "a":
		f.a = x
	case "p":
		f.p = x
	case "iters":
		f.iters = int(x)
	case "k":
		f.k = int(x)
	default:
		return fmt.Errorf("no option %q", name)
	}
	return nil
}

func (f *cvFake) SetProgress(lrsdl.ProgressFunc) {}

func (f *cvFake) Fit(_ context.Context, Y mat.Matrix, labels []int) error {
	f.fits.Add(1)
	_, idx := split.ByClass(labels)
	for _, ix := range idx {
		if f.k > len(ix) {
			return fmt.Errorf("k=%d above a class of %d", f.k, len(ix))
		}
	}
	f.trainedK = f.k
	return nil
}

func (f *cvFake) Predict(Y mat.Matrix) ([]int, error) {
	return qualityLabels(Y, f.a*float64(f.iters)/40*(1-(f.p-2)*(f.p-2)/10)), nil
}

// qualityLabels labels the first q·n samples of Y right (feature 0 holds
// the label, 0 or 1) and the rest wrong.
func qualityLabels(Y mat.Matrix, q float64) []int {
	_, n := Y.Dims()
	out := make([]int, n)
	for j := range n {
		out[j] = int(Y.At(0, j))
		if float64(j) >= q*float64(n) {
			out[j] = 1 - out[j]
		}
	}
	return out
}

func cvData() split.Set {
	Y := mat.NewDense(1, 400, nil)
	s := split.Set{Y: Y}
	for j := range 400 {
		Y.Set(0, j, float64(j%2))
		s.Labels = append(s.Labels, j%2)
	}
	return s
}

func TestCrossValidateHalvingAndPredictOptions(t *testing.T) {
	var fits atomic.Int64
	newFake := func() (lrsdl.Classifier, error) { return &cvFake{iters: 40, fits: &fits}, nil }
	// 8 training points (a) × 3 prediction values (p); folds of 4 × 10.
	grid := Grid{"a": {0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1}, "p": {1, 2, 3}, "k": {200, 400}}
	var first *CVResult
	for _, procs := range []int{1, 2} {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		fits.Store(0)
		res, err := CrossValidateSet(context.Background(), newFake, cvData(), 4, grid, 1)
		if err != nil {
			t.Fatal(err)
		}
		// k capped at the 150 samples of a class in a training fold: one
		// value. cvFake's scores rise linearly: rounds of 8 at 5 and 10
		// iterations, every point projected to reach the third best; then
		// 8 at 20, where a=0.3 (projected 0.3) falls short of a=0.8's 0.4;
		// then 7 to the end, on 4 folds.
		if n := fits.Load(); n != (8+8+8+7)*4 {
			t.Errorf("GOMAXPROCS %d: %d fits, want %d", procs, n, (8+8+8+7)*4)
		}
		// Best's k is the value scored, 150 for both 200 and 400.
		if len(res.Scores) != 24 || res.Points != 48 || res.KCap != 150 || res.Best["a"] != 1.0 || res.Best["p"] != 2.0 || res.Best["k"] != 150.0 {
			t.Fatalf("best %v of %d scores, %d points, k capped at %d", res.Best, len(res.Scores), res.Points, res.KCap)
		}
		for _, sc := range res.Scores {
			want := 40
			if sc.Params["a"] == 0.3 {
				want = 20
			}
			if sc.Iters != want {
				t.Errorf("a=%v scored at %d iterations, want %d", sc.Params["a"], sc.Iters, want)
			}
		}
		if first == nil {
			first = res
		} else if !slices.EqualFunc(first.Scores, res.Scores, func(x, y CVScore) bool { return x.Accuracy == y.Accuracy && x.Iters == y.Iters }) {
			t.Error("scores depend on GOMAXPROCS")
		}
	}
	// A grid without iters rounds when it has few training points.
	fits.Store(0)
	if _, err := CrossValidateSet(context.Background(), newFake, cvData(), 4, Grid{"a": {0.5, 1}, "p": {1, 2}}, 1); err != nil || fits.Load() != 2*4 {
		t.Errorf("small grid: %d fits, %v; want 8", fits.Load(), err)
	}
	// Four training points round (4 at 5, 10 and 20 iterations, where
	// a=0.35 projects to 0.35 at 40, short of a=0.8's 0.4; then 3 to the
	// end, on 4 folds); three do not.
	for _, c := range []struct {
		a    []any
		want int64
	}{{[]any{0.35, 0.6, 0.8, 1.0}, (4 + 4 + 4 + 3) * 4}, {[]any{0.6, 0.8, 1.0}, 3 * 4}} {
		fits.Store(0)
		if _, err := CrossValidateSet(context.Background(), newFake, cvData(), 4, Grid{"a": c.a}, 1); err != nil || fits.Load() != c.want {
			t.Errorf("%d training points: %d fits, %v; want %d", len(c.a), fits.Load(), err, c.want)
		}
	}
}

// TestHalvingRounds checks the rounds of successive halving: a probe at
// half the first round, then a ninth, a third and all of the iterations
// for a resumable method, or a quarter, half and all when a ninth is under
// 3 or the method is not resumable; none when the first round is under 2.
func TestHalvingRounds(t *testing.T) {
	for _, c := range []struct {
		iters   int
		resumes bool
		want    []int
	}{
		{30, true, []int{1, 3, 10, 30}}, {40, true, []int{2, 4, 13, 40}}, {27, true, []int{1, 3, 9, 27}},
		{24, true, []int{3, 6, 12, 24}}, {15, true, []int{1, 3, 7, 15}}, {4, true, []int{4}},
		{30, false, []int{3, 7, 15, 30}}, {50, false, []int{6, 12, 25, 50}}, {15, false, []int{1, 3, 7, 15}},
		{8, false, []int{1, 2, 4, 8}}, {7, false, []int{7}},
	} {
		if got := halvingRounds(c.iters, c.resumes); !slices.Equal(got, c.want) {
			t.Errorf("%d iterations, resumable %v: rounds %v, want %v", c.iters, c.resumes, got, c.want)
		}
	}
}

func TestParseGrid(t *testing.T) {
	g := Grid{"k": {20, 40}, "lambda1": {0.001, 0.01}, "w": {0.5}}
	back, err := ParseGrid(g.String())
	if err != nil || back.String() != g.String() {
		t.Fatalf("ParseGrid(%q) = %v, %v", g.String(), back, err)
	}
	if back, err := ParseGrid("k=40;lambda1={0.001,0.01}"); err != nil || back.String() != "k={40} lambda1={0.001,0.01}" {
		t.Errorf("ParseGrid with ; and a bare value = %v, %v", back, err)
	}
	// Choices and bools stay text and bool; numbers are float64.
	back, err = ParseGrid("rule={mean,nn} plain=true k={20}")
	if err != nil || !reflect.DeepEqual(back, Grid{"rule": {"mean", "nn"}, "plain": {true}, "k": {20.0}}) {
		t.Errorf("ParseGrid with choices = %#v, %v", back, err)
	}
	// Points gives integer literals of a Grid as float64, as Params holds numbers.
	if pts := (Grid{"k": {20}, "rule": {"nn"}}).Points(); len(pts) != 1 || pts[0]["k"] != 20.0 || pts[0]["rule"] != "nn" {
		t.Errorf("Points = %v", pts)
	}
	for s, want := range map[string]string{
		"":                  "no options",
		"k":                 "want name=",
		"k={1,2} k={3}":     "given twice",
		"k={1,2":            "unbalanced",
		"lambda1={0.1,NaN}": "not a finite number",
		"lambda1={0.1,}":    "empty value",
	} {
		if _, err := ParseGrid(s); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseGrid(%q) error %v, want it to say %q", s, err, want)
		}
	}
}
