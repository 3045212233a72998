package eval

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/lrsdl/lrsdl"
)

// Grid lists candidate values of method options by JSON name. A value is
// a number, a bool or a string (a choice such as SRRS's rule), as in
// Params; Points gives every number as float64.
type Grid map[string][]any

// Points returns every combination of g's values, varying the option
// whose name sorts last fastest.
func (g Grid) Points() []Params {
	names := make([]string, 0, len(g))
	for k := range g {
		names = append(names, k)
	}
	sort.Strings(names)
	pts := []Params{{}}
	for _, k := range names {
		var next []Params
		for _, p := range pts {
			for _, v := range g[k] {
				q := Params{k: gridValue(v)}
				for kk, vv := range p {
					q[kk] = vv
				}
				next = append(next, q)
			}
		}
		pts = next
	}
	return pts
}

// gridValue returns v with an integer or float32 as float64.
func gridValue(v any) any {
	switch v := v.(type) {
	case int:
		return float64(v)
	case int64:
		return float64(v)
	case float32:
		return float64(v)
	}
	return v
}

// String formats g as "name={v1,v2} ...".
func (g Grid) String() string {
	var s []string
	names := make([]string, 0, len(g))
	for k := range g {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		vs := make([]string, len(g[k]))
		for i, v := range g[k] {
			vs[i] = fmt.Sprint(v)
		}
		s = append(s, k+"={"+strings.Join(vs, ",")+"}")
	}
	return strings.Join(s, " ")
}

// ParseGrid parses the form Grid.String writes, "name={v1,v2} name={v}",
// names separated by spaces or semicolons; a single value may stand
// without braces ("k=40").
func ParseGrid(s string) (Grid, error) {
	g := Grid{}
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == ';' || r == '\t' }) {
		name, vals, ok := strings.Cut(f, "=")
		if !ok || name == "" || vals == "" {
			return nil, fmt.Errorf("grid %q: want name={v1,v2,...}", f)
		}
		if _, dup := g[name]; dup {
			return nil, fmt.Errorf("grid: %s given twice", name)
		}
		if strings.HasPrefix(vals, "{") != strings.HasSuffix(vals, "}") {
			return nil, fmt.Errorf("grid %q: unbalanced braces", f)
		}
		for _, v := range strings.Split(strings.TrimSuffix(strings.TrimPrefix(vals, "{"), "}"), ",") {
			v = strings.TrimSpace(v)
			if v == "" {
				return nil, fmt.Errorf("grid: %s has an empty value", name)
			}
			x, err := strconv.ParseFloat(v, 64)
			if err != nil {
				// Not a number: a bool or a choice, checked when set.
				if b, err := strconv.ParseBool(v); err == nil {
					g[name] = append(g[name], b)
				} else {
					g[name] = append(g[name], v)
				}
				continue
			}
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, fmt.Errorf("grid: %s value %q is not a finite number", name, v)
			}
			g[name] = append(g[name], x)
		}
	}
	if len(g) == 0 {
		return nil, fmt.Errorf("grid %q: no options", s)
	}
	return g, nil
}

// DefaultGrids are the cross-validation grids of the command's -cv flag,
// by method name (as Name returns it). They cover what moves accuracy: atoms per class (the
// default and twice it; CrossValidate caps k at the smallest class of a
// training fold), the sparsity weight (0.001 and 0.01, the range of the
// paper and its authors' settings), the discrimination weight (λ2 or η) and
// the prediction rule where the method has one (GC weight w, local
// coding, or SRRS's nearest mean or sample). SRRS's subspace dimension is
// left to its data-aware default, C − 1. Options a method lacks are
// dropped by DefaultGrid. Prediction options cost no training, and
// successive halving (see CrossValidateWith) trains most candidates briefly.
var DefaultGrids = map[string]Grid{
	"LRSDL":   {"k": {20, 40}, "lambda1": {0.001, 0.01}, "eta": {0.01, 0.1}, "w": {0.25, 0.5}, "lc": {0, 1}},
	"FDDL":    {"k": {20, 40}, "lambda1": {0.001, 0.01}, "lambda2": {0.01, 0.05}, "w": {0.25, 0.5}, "lc": {0, 1}},
	"D2L2R2":  {"k": {20, 40}, "lambda1": {0.001, 0.01}, "lambda2": {0.01, 0.05}, "w": {0.25, 0.5}, "lc": {0, 1}},
	"DLSI":    {"k": {25, 50}, "lambda": {0.001, 0.01}, "eta": {0.01, 0.05}},
	"COPAR":   {"k": {20, 40}, "lambda": {0.001, 0.01}, "eta": {0.01, 0.05}},
	"LCKSVD1": {"k": {25, 50}, "alpha": {0.001, 0.01}},
	"LCKSVD2": {"k": {25, 50}, "alpha": {0.001, 0.01}, "beta": {0.001, 0.01}},
	"SRC":     {"lambda": {0.0001, 0.001, 0.01}},
	"ODL":     {"k": {25, 50}, "lambda": {0.001, 0.01}},
	"JDL":     {"k": {20, 40}, "lambda1": {0.01, 0.03}, "lambda2": {0.01, 0.05}},
	"JDL*":    {"k": {20, 40}, "lambda1": {0.01, 0.03}, "lambda2": {0.01, 0.05}},
	"DLRD":    {"k": {20, 40}, "lambda1": {0.005, 0.02}, "alpha": {0.005, 0.05}},
	"SRRS":    {"lambda1": {0.1, 1}, "lambda2": {0.01, 0.1}, "rule": {"mean", "nn"}},
}

// DefaultGrid returns the default grid of c's method restricted to the
// options c has, or nil.
func DefaultGrid(c lrsdl.Classifier) Grid {
	g := DefaultGrids[c.Name()]
	names := ParamNames(c)
	out := Grid{}
	for k, v := range g {
		if i := sort.SearchStrings(names, k); i < len(names) && names[i] == k {
			out[k] = v
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
