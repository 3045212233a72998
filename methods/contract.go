package methods

import (
	"context"
	"fmt"
	"math"

	"github.com/james-bowman/sparse"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/core"
	"github.com/lrsdl/lrsdl/methods/internal/dl"
)

// Every model of this package is an lrsdl.Model.
var (
	_ lrsdl.Model = (*SRC)(nil)
	_ lrsdl.Model = (*ODL)(nil)
	_ lrsdl.Model = (*LCKSVD1)(nil)
	_ lrsdl.Model = (*LCKSVD2)(nil)
	_ lrsdl.Model = (*DLSI)(nil)
	_ lrsdl.Model = (*COPAR)(nil)
	_ lrsdl.Model = (*FDDL)(nil)
	_ lrsdl.Model = (*D2L2R2)(nil)
	_ lrsdl.Model = (*LRSDL)(nil)
	_ lrsdl.Model = (*JDL)(nil)
	_ lrsdl.Model = (*DLRD)(nil)
	_ lrsdl.Model = (*SRRS)(nil)
)

// argmaxLabels returns, for each column of the C×n scores S, the label
// cl.Labels[c] of its largest entry, the first on ties; a column of NaN
// gives the first class.
func argmaxLabels(S *mat.Dense, cl *core.Classes) []int {
	C, n := S.Dims()
	out := make([]int, n)
	best := make([]float64, n)
	for c := 0; c < C; c++ {
		for j, v := range S.RawRowView(c)[:n] {
			if c == 0 || v > best[j] {
				best[j], out[j] = v, cl.Labels[c]
			}
		}
	}
	return out
}

// scoresFrom returns the C×n matrix S[c, j] = −e[j*C+c].
func scoresFrom(e []float64, C int) *mat.Dense {
	n := len(e) / C
	S := mat.NewDense(C, n, nil)
	for j := 0; j < n; j++ {
		for c := 0; c < C; c++ {
			S.Set(c, j, -e[j*C+c])
		}
	}
	return S
}

// softmax returns the column-wise softmax of S/T (T ≤ 0 means 1), each
// column shifted by its maximum. A column with a non-finite maximum is an
// error.
func softmax(S *mat.Dense, T float64) (*mat.Dense, error) {
	if T <= 0 {
		T = 1
	}
	C, n := S.Dims()
	P := mat.NewDense(C, n, nil)
	col := make([]float64, C)
	for j := 0; j < n; j++ {
		mx := math.Inf(-1)
		for c := 0; c < C; c++ {
			col[c] = S.At(c, j)
			mx = math.Max(mx, col[c])
		}
		if math.IsInf(mx, 0) || math.IsNaN(mx) {
			return nil, fmt.Errorf("methods: sample %d has no finite class score", j)
		}
		var sum float64
		for c := range col {
			col[c] = math.Exp((col[c] - mx) / T)
			sum += col[c]
		}
		for c, v := range col {
			P.Set(c, j, v/sum)
		}
	}
	return P, nil
}

// calib holds the softmax temperature of PredictProba; models embed it.
type calib struct {
	temp float64 // 0 means 1
}

// Temperature returns the softmax temperature T of PredictProba.
func (c *calib) Temperature() float64 {
	if c.temp <= 0 {
		return 1
	}
	return c.temp
}

// setTemperature sets T (≤ 0 means 1).
func (c *calib) setTemperature(t float64) { c.temp = t }

// proba returns softmax(S/T) of scores S, passing err on.
func (c *calib) proba(S *mat.Dense, err error) (*mat.Dense, error) {
	if err != nil {
		return nil, err
	}
	return softmax(S, c.Temperature())
}

// classesOf returns a copy of cl's labels, nil for nil or no classes.
func classesOf(cl *core.Classes) []int {
	if cl == nil || cl.Len() == 0 {
		return nil
	}
	return append([]int(nil), cl.Labels...)
}

// bg is the context of the methods without one.
var bg = context.Background()

// listParams returns the parameters of user, or of res once trained.
func listParams(trained bool, user, res interface{ spec() optSpec }) []lrsdl.Param {
	if trained {
		return res.spec().params()
	}
	return user.spec().params()
}

// setParam sets the named option of user and, once trained, of res when
// it acts at prediction.
func setParam(trained bool, user, res interface{ spec() optSpec }, name, value string) error {
	if err := user.spec().set(name, value); err != nil {
		return err
	}
	if op, err := user.spec().find(name); trained && err == nil && op.predict {
		return res.spec().set(name, value)
	}
	return nil
}

// stateOut adds the temperature to a state s (passing err on).
func (c *calib) stateOut(s *lrsdl.State, err error) (*lrsdl.State, error) {
	if err != nil {
		return nil, err
	}
	s.Temperature = c.temp
	return s, nil
}

// stateIn restores s by set, then the temperature.
func (c *calib) stateIn(s *lrsdl.State, set func(*lrsdl.State) error) error {
	if err := set(s); err != nil {
		return err
	}
	if t := s.Temperature; !(t >= 0) || math.IsInf(t, 0) {
		return fmt.Errorf("methods: %s state has temperature %g", s.Method, t)
	}
	c.temp = s.Temperature
	return nil
}

// normalized returns Y with every column scaled to unit ℓ2 norm when on
// (sparse input stays sparse). Columns of zero norm, or of norm within
// 1e-12 of 1, are left as they are; Y itself is returned when no column
// changes.
func normalized(Y mat.Matrix, on bool) mat.Matrix {
	if !on || Y == nil {
		return Y
	}
	r, n := Y.Dims()
	if r == 0 || n == 0 {
		return Y
	}
	if s, ok := Y.(*sparse.CSC); ok {
		if dl.CheckCSC("", s) != nil {
			return Y // malformed: the checks of Fit and Predict report it
		}
		raw := s.RawMatrix()
		// Each column's norm from its dense form, as for dense input, so
		// that both give the same bits whatever the order of the entries.
		scale := make([]float64, n)
		col := make([]float64, r)
		change := false
		for j := 0; j < n; j++ {
			for k := raw.Indptr[j]; k < raw.Indptr[j+1]; k++ {
				col[raw.Ind[k]] = raw.Data[k]
			}
			scale[j] = unitScale(col)
			for k := raw.Indptr[j]; k < raw.Indptr[j+1]; k++ {
				col[raw.Ind[k]] = 0
			}
			change = change || scale[j] != 1
		}
		if !change {
			return Y
		}
		data := append([]float64(nil), raw.Data...)
		for j := 0; j < n; j++ {
			for k := raw.Indptr[j]; k < raw.Indptr[j+1]; k++ {
				data[k] *= scale[j]
			}
		}
		return sparse.NewCSC(r, n, append([]int(nil), raw.Indptr...), append([]int(nil), raw.Ind...), data)
	}
	var out *mat.Dense
	col := make([]float64, r)
	for j := 0; j < n; j++ {
		mat.Col(col, j, Y)
		if f := unitScale(col); f != 1 {
			if out == nil {
				out = mat.DenseCopyOf(Y)
			}
			floats.Scale(f, col)
			out.SetCol(j, col)
		}
	}
	if out == nil {
		return Y
	}
	return out
}

// unitScale returns 1/‖x‖₂, or 1 when ‖x‖₂ is 0, within 1e-12 of 1 or not
// finite.
func unitScale(x []float64) float64 {
	nrm := floats.Norm(x, 2)
	if nrm == 0 || math.Abs(nrm-1) <= 1e-12 || math.IsInf(nrm, 0) || math.IsNaN(nrm) {
		return 1
	}
	return 1 / nrm
}
