package fisher

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/lrsdl/lrsdl/methods/internal/dl"
	"github.com/lrsdl/lrsdl/methods/internal/toy"
	"gonum.org/v1/gonum/mat"
)

// lcModel is a trained LRSDL or FDDL model.
type lcModel struct {
	name string
	*Model
}

// Name returns the model's name.
func (m lcModel) Name() string { return m.name }

// fitModels trains a model on (Y, labels) with each of ps, named by names.
func fitModels(t *testing.T, Y *mat.Dense, labels []int, names []string, ps ...Params) []lcModel {
	t.Helper()
	var out []lcModel
	for i, p := range ps {
		m := &Model{}
		if err := m.Fit(context.Background(), names[i], Y, labels, func(dl.Info) (Params, error) { return p, nil }); err != nil {
			t.Fatal(err)
		}
		out = append(out, lcModel{names[i], m})
	}
	return out
}

// lcModels returns LRSDL (k0 = 3) and FDDL, 4 atoms per class, trained on
// toy.Shared(C, n, d, seed).
func lcModels(t *testing.T, C, n, d int, seed uint64) []lcModel {
	t.Helper()
	Y, labels, _ := toy.Shared(C, n, d, seed)
	fddl, lr := fddlParams(4, 0.01), lrsdlParams(4, 3, 0.01, 0.1)
	fddl.Iters, fddl.Seed, lr.Iters, lr.Seed = 5, 2, 5, 2
	return fitModels(t, Y, labels, []string{"LRSDL", "FDDL"}, lr, fddl)
}

// TestLCScoresAreLassoMinima checks that the LC score of a sample and class
// is the minimum of its lasso on [D_c D0] (on D_c alone for FDDL).
func TestLCScoresAreLassoMinima(t *testing.T) {
	Yt, _, _ := toy.Shared(3, 10, 30, 6)
	for _, m := range lcModels(t, 3, 20, 30, 5) {
		f := m.Model
		K, k0 := f.dims()
		for _, lambda := range []float64{0.001, 0.01, 0.05} {
			e, err := f.lcScores(context.Background(), lambda, Yt)
			if err != nil {
				t.Fatal(err)
			}
			C := f.Part.Blocks()
			for c := 0; c < C; c++ {
				a0, a1 := f.Part.Block(c)
				var idx []int
				for i := a0; i < a1; i++ {
					idx = append(idx, i)
				}
				for i := K; i < K+k0; i++ {
					idx = append(idx, i)
				}
				half, l1 := toy.LassoMinimum(t, toy.Columns(f.Db, idx), Yt, lambda)
				for j := range half {
					want := half[j] + lambda*l1[j]
					if got := e[j*C+c]; math.Abs(got-want) > 1e-9*(1+want) {
						t.Fatalf("%s λ=%v class %d sample %d: LC score %.15g, lasso minimum %.15g", m.Name(), lambda, c, j, got, want)
					}
				}
			}
		}
	}
}

// TestLCPredictIsArgminOfScores checks lcPredict, which skips classes by a
// least-squares bound, against the argmin of lcScores, which codes every
// sample on every class, for FDDL and LRSDL with 12 classes, and that at
// λ = 0.001, where the ℓ1 term adds little to the bound, it skipped most
// pairs.
func TestLCPredictIsArgminOfScores(t *testing.T) {
	Yt, _, _ := toy.Shared(12, 20, 40, 8)
	for _, m := range lcModels(t, 12, 15, 40, 7) {
		f := m.Model
		_, n := Yt.Dims()
		C := f.Part.Blocks()
		for _, lambda := range []float64{0.001, 0.01, 0.1} {
			e, err := f.lcScores(context.Background(), lambda, Yt)
			if err != nil {
				t.Fatal(err)
			}
			want := f.argmin(e)
			got, coded, err := f.lcPredict(context.Background(), lambda, Yt)
			if err != nil {
				t.Fatal(err)
			}
			for j := range want {
				if got[j] != want[j] {
					t.Fatalf("%s λ=%v sample %d: lcPredict says class %d, the least LC score is class %d's", m.Name(), lambda, j, got[j], want[j])
				}
			}
			t.Logf("%s λ=%v: coded %d of %d (sample, class) pairs", m.Name(), lambda, coded, n*C)
			if coded < n || lambda == 0.001 && coded > n*C/2 {
				t.Errorf("%s λ=%v: coded %d of %d pairs, want from %d to half", m.Name(), lambda, coded, n*C, n)
			}
		}
	}
}

// TestFisherScoresMatchReference checks the GC scores against the
// element-by-element loops they replaced (scoresRef), bit for bit
// (TestLCScoresAreLassoMinima checks the LC scores).
func TestFisherScoresMatchReference(t *testing.T) {
	ctx := context.Background()
	Y, labels, _ := toy.Shared(4, 10, 40, 3)
	Yt, _, _ := toy.Shared(4, 12, 40, 4)
	lr, fddl, d2 := lrsdlParams(5, 3, 0.01, 0.05), fddlParams(5, 0.01), d2l2r2Params(5, 0.01, 0.05)
	for _, p := range []*Params{&lr, &fddl, &d2} {
		p.Iters, p.Seed = 4, 7
	}
	for _, m := range fitModels(t, Y, labels, []string{"LRSDL", "FDDL", "D2L2R2"}, lr, fddl, d2) {
		name, f := m.name, m.Model
		p := lrsdlParams(4, 3, 0.01, 0.1)
		p.W, p.Lambda = 0.3, 0.02
		Xb, err := f.codes(ctx, p, Yt)
		must(t, err)
		got, err := f.scores(ctx, p, Yt, Xb)
		must(t, err)
		want, err := scoresRef(f, ctx, p, Yt, Xb)
		must(t, err)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: GC scores differ from the reference", name)
		}
	}
}

func scoresRef(f *Model, ctx context.Context, p Params, Y mat.Matrix, Xb *mat.Dense) ([]float64, error) {
	K, k0 := f.dims()
	d, n := Y.Dims()
	C := f.Part.Blocks()
	Yb := dl.DenseCopy(Y)
	if k0 > 0 {
		var t mat.Dense
		t.Mul(f.Db.Slice(0, d, K, K+k0), Xb.Slice(K, K+k0, 0, n))
		Yb.Sub(Yb, &t)
	}
	e := make([]float64, n*C)
	var R mat.Dense
	for c := 0; c < C; c++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		a0, a1 := f.Part.Block(c)
		Dc := f.Db.Slice(0, d, a0, a1).(*mat.Dense)
		R.Reset()
		R.Mul(Dc, Xb.Slice(a0, a1, 0, n))
		R.Sub(Yb, &R)
		for j := 0; j < n; j++ {
			var r2, c2 float64
			for i := 0; i < d; i++ {
				r2 += R.At(i, j) * R.At(i, j)
			}
			for i := 0; i < K; i++ {
				v := Xb.At(i, j) - f.Mc.At(i, c)
				c2 += v * v
			}
			e[j*C+c] = p.W*r2 + (1-p.W)*c2
		}
	}
	return e, nil
}
