package methods

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/methods/internal/dl"
)

// zeroCodesSamples is the number of training samples fitCodes codes.
const zeroCodesSamples = 64

// fitCodes runs fit on Y and then codes, by transform, at most
// zeroCodesSamples columns of Y (evenly spaced, and the one of largest
// norm, which is the likeliest to have a non-zero code). If every code is
// 0 the model learned nothing: fitCodes leaves m as New returns it (its
// Options and engine settings kept) and returns an error naming the ℓ1
// weights of spec with their values and the largest sample norm. The
// check costs a pass over Y and one Transform of those columns: for a
// lasso-coded model with K atoms, the Gram matrix (O(K²d)) and at most
// zeroCodesSamples lasso codes.
//
// SRC (which learns nothing), LC-KSVD1 and LC-KSVD2 (OMP with a sparsity
// target codes every sample on at least one atom) and SRRS (a projection,
// with no ℓ1 weight on codes) cannot learn all-zero codes and do not call
// fitCodes.
func fitCodes(ctx context.Context, m lrsdl.Model, spec optSpec, Y mat.Matrix, labels []int,
	fit func(context.Context, mat.Matrix, []int) error, transform func(mat.Matrix) (*mat.Dense, error)) error {
	if err := fit(ctx, Y, labels); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		untrain(m)
		return err
	}
	S, n := codesSample(Y)
	X, err := transform(S)
	if errors.Is(err, ErrNotTrained) {
		return nil // a score-only fit (SetScoreOnly) codes nothing
	}
	if err != nil {
		untrain(m)
		return err
	}
	if !allZero(X) {
		return nil
	}
	err = zeroCodesError(m, spec, Y, n)
	untrain(m)
	return err
}

// codesSample returns the columns fitCodes codes and how many there are.
func codesSample(Y mat.Matrix) (*mat.Dense, int) {
	d, N := Y.Dims()
	big, norm := 0, -1.0
	for j := 0; j < N; j++ {
		var s float64
		for i := 0; i < d; i++ {
			v := Y.At(i, j)
			s += v * v
		}
		if s > norm {
			big, norm = j, s
		}
	}
	cols := []int{big}
	step := max(1, N/zeroCodesSamples)
	for j := 0; j < N && len(cols) < zeroCodesSamples; j += step {
		if j != big {
			cols = append(cols, j)
		}
	}
	S := mat.NewDense(d, len(cols), nil)
	for k, j := range cols {
		for i := 0; i < d; i++ {
			S.Set(i, k, Y.At(i, j))
		}
	}
	return S, len(cols)
}

// allZero reports whether every entry of X is 0.
func allZero(X *mat.Dense) bool {
	r, c := X.Dims()
	for i := 0; i < r; i++ {
		for _, v := range X.RawRowView(i)[:c] {
			if v != 0 {
				return false
			}
		}
	}
	return true
}

// zeroCodesError names the ℓ1 weights of spec as m resolved them, and the
// scale of Y.
func zeroCodesError(m lrsdl.Model, spec optSpec, Y mat.Matrix, n int) error {
	var weights []string
	for _, o := range spec.opts {
		if o.zeroAt <= 0 {
			continue
		}
		for _, p := range m.Params() {
			if p.Name == o.name {
				weights = append(weights, p.Name+"="+p.Value)
			}
		}
	}
	_, N := Y.Dims()
	which := fmt.Sprintf("all %d training samples", N)
	if n < N {
		which = fmt.Sprintf("%d of the %d training samples (the largest included)", n, N)
	}
	return fmt.Errorf("methods: %s learned nothing: the codes of %s are all 0 at %s, on samples of largest norm %.4g: lower %s, or scale the samples up",
		m.Name(), which, strings.Join(weights, ", "), dl.MaxColNorm(Y), weightNames(weights))
}

// weightNames returns the names of "name=value" pairs, joined by "or".
func weightNames(ws []string) string {
	names := make([]string, len(ws))
	for i, w := range ws {
		names[i], _, _ = strings.Cut(w, "=")
	}
	if len(names) == 0 {
		return "the ℓ1 weight"
	}
	return strings.Join(names, " or ")
}

// untrain makes m, a pointer to a model struct with an Options field, the
// model New returns for its name, with its Options and engine settings
// kept.
func untrain(m lrsdl.Model) {
	fresh, err := New(m.Name())
	if err != nil {
		return
	}
	v := reflect.ValueOf(m).Elem()
	opts := reflect.New(v.FieldByName("Options").Type()).Elem()
	opts.Set(v.FieldByName("Options"))
	var set *dl.Settings
	if s, ok := m.(interface{ settings() *dl.Settings }); ok {
		c := *s.settings()
		set = &c
	}
	v.Set(reflect.ValueOf(fresh).Elem())
	v.FieldByName("Options").Set(opts)
	if s, ok := m.(interface{ settings() *dl.Settings }); ok && set != nil {
		*s.settings() = *set
	}
}
