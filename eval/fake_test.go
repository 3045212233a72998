package eval

import (
	"context"
	"fmt"
	"math"
	"strconv"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/split"
)

type fakeOptions struct {
	Lambda   float64            `json:"lambda"`
	Iters    int                `json:"iters"`
	Seed     uint64             `json:"seed"`
	Original bool               `json:"original_x"`
	Progress lrsdl.ProgressFunc `json:"-"`
}

// fake is a nearest-class-mean classifier. With lambda > 0.5 it predicts
// the first class for everything. It records the largest value of the
// first feature it was trained on.
type fake struct {
	Options fakeOptions
	classes []int
	means   []*mat.VecDense
	maxY0   float64
}

func (f *fake) Name() string { return "FAKE" }

// Params, SetParam and SetProgress make fake an lrsdl.Configurable.
func (f *fake) Params() []lrsdl.Param {
	o := &f.Options
	return []lrsdl.Param{
		{Name: "iters", Type: "int", Value: fmt.Sprint(o.Iters), Default: "0"},
		{Name: "lambda", Type: "float", Value: fmt.Sprint(o.Lambda), Default: "0"},
		{Name: "original_x", Type: "bool", Value: fmt.Sprint(o.Original), Default: "false"},
		{Name: "seed", Type: "seed", Value: fmt.Sprint(o.Seed), Default: "0"},
	}
}

func (f *fake) SetParam(name, value string) error {
	o := f.Options
	var err error
	switch name {
	case "iters":
		o.Iters, err = strconv.Atoi(value)
	case "lambda":
		o.Lambda, err = strconv.ParseFloat(value, 64)
	case "original_x":
		o.Original, err = strconv.ParseBool(value)
	case "seed":
		o.Seed, err = strconv.ParseUint(value, 10, 64)
	default:
		return fmt.Errorf("method FAKE has no option %q (have iters, lambda, original_x, seed)", name)
	}
	if err != nil {
		return fmt.Errorf("method FAKE option %s=%s: %v", name, value, err)
	}
	f.Options = o
	return nil
}

func (f *fake) SetProgress(p lrsdl.ProgressFunc) { f.Options.Progress = p }

func (f *fake) Fit(ctx context.Context, Y mat.Matrix, labels []int) error {
	d, n := Y.Dims()
	if n != len(labels) {
		return fmt.Errorf("fake: %d labels, %d samples", len(labels), n)
	}
	cl, idx := split.ByClass(labels)
	f.classes, f.means = cl, nil
	f.maxY0 = math.Inf(-1)
	for _, ix := range idx {
		m := mat.NewVecDense(d, nil)
		for _, j := range ix {
			m.AddVec(m, mat.NewVecDense(d, mat.Col(nil, j, Y)))
			f.maxY0 = max(f.maxY0, Y.At(0, j))
		}
		m.ScaleVec(1/float64(len(ix)), m)
		f.means = append(f.means, m)
	}
	for it := 1; it <= f.Options.Iters; it++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		if f.Options.Progress != nil {
			f.Options.Progress(lrsdl.Progress{Iter: it, Cost: lrsdl.Cost{Total: 1 / float64(it)}})
		}
	}
	return nil
}

func (f *fake) Predict(Y mat.Matrix) ([]int, error) {
	d, n := Y.Dims()
	out := make([]int, n)
	for j := range n {
		if f.Options.Lambda > 0.5 {
			out[j] = f.classes[0]
			continue
		}
		y := mat.NewVecDense(d, mat.Col(nil, j, Y))
		best := math.Inf(1)
		for c, m := range f.means {
			var r mat.VecDense
			r.SubVec(y, m)
			if v := mat.Norm(&r, 2); v < best {
				best, out[j] = v, f.classes[c]
			}
		}
	}
	return out, nil
}
