package methods

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/core"
	"github.com/lrsdl/lrsdl/methods/internal/dl"
)

func init() {
	register("ODL", func() lrsdl.Model { return &ODL{} })
}

// ODLOptions configures ODL. The zero value means the defaults.
type ODLOptions struct {
	K           int                `json:"k"`                      // atoms per class (Fit) or in all (Learn); zero means min(25, smallest class)
	Lambda      float64            `json:"lambda"`                 // sparsity weight λ; zero means 0.001
	Iters       int                `json:"iters"`                  // outer iterations; zero means 20
	Seed        uint64             `json:"seed"`                   // seed of the initial atom choice
	NoNormalize bool               `json:"no_normalize,omitempty"` // use the samples as given, not scaled to unit ℓ2 norm
	Progress    lrsdl.ProgressFunc `json:"-"`                      // called after each outer iteration
}

func (o *ODLOptions) spec() optSpec {
	return optSpec{method: "ODL", opts: []opt{
		kOpt(&o.K, 25, "atoms per class"),
		{name: "lambda", doc: "sparsity weight λ", f: &o.Lambda, def: 0.001, minOpen: true, zeroAt: 1},
		itersOpt(&o.Iters, 20),
		seedOpt(&o.Seed),
		normOpt(&o.NoNormalize),
	}}
}

// ODL is online dictionary learning (Mairal et al.) in batch form: Fit
// learns one dictionary D_c per class, minimising ½‖Y_c − D_cX_c‖²_F +
// λ‖X_c‖₁ with ‖dᵢ‖₂ ≤ 1, and predicts like SRC on D = [D_1..D_C]; Learn
// fits one dictionary to unlabelled data, for Transform only.
type ODL struct {
	Options ODLOptions
	res     ODLOptions // resolved options of the last Fit or SetState
	m       classDict
	base
}

// Name returns "ODL".
func (m *ODL) Name() string { return "ODL" }

// Params lists the options, resolved once trained.
func (m *ODL) Params() []lrsdl.Param { return listParams(m.m.D != nil, &m.Options, &m.res) }

// SetParam sets the named option from its text form.
func (m *ODL) SetParam(name, value string) error {
	return setParam(m.m.D != nil, &m.Options, &m.res, name, value)
}

// SetProgress sets the function called after each outer iteration.
func (m *ODL) SetProgress(f lrsdl.ProgressFunc) { m.Options.Progress, m.res.Progress = f, f }

// fitRaw is Fit on samples as given.
func (m *ODL) fitRaw(ctx context.Context, Y mat.Matrix, labels []int) error {
	start := time.Now()
	m.info = lrsdl.FitInfo{}
	o := m.Options
	Ys, g, info, err := classTrainingSet(m.Name(), Y, labels, &o)
	if err != nil {
		return err
	}
	return m.learn(ctx, start, o, info, Ys, g.Part, g.Classes)
}

// Learn learns a dictionary of k atoms (k ≤ the samples) from the
// unlabelled columns of Y, for Transform; the model cannot Predict.
func (m *ODL) Learn(ctx context.Context, Y mat.Matrix) error {
	Y = normalized(Y, !m.Options.NoNormalize)
	start := time.Now()
	m.info = lrsdl.FitInfo{}
	if Y == nil {
		return fmt.Errorf("methods: nil training data")
	}
	if err := dl.CheckFinite("training data", Y); err != nil {
		return err
	}
	d, n := Y.Dims()
	o := m.Options
	info := dl.Info{Dim: d, N: n, Classes: 1, MinClass: n, MaxNorm: dl.MaxColNorm(Y)}
	if err := o.spec().resolve(&info); err != nil {
		return err
	}
	return m.learn(ctx, start, o, info, mat.DenseCopyOf(Y), core.Partition{0, n}, core.ClassesOf(nil))
}

// learn alternates coding and dictionary updates for each block of
// samples sp (a class, or all samples) with its own dictionary.
func (m *ODL) learn(ctx context.Context, start time.Time, o ODLOptions, info dl.Info, Y *mat.Dense, sp core.Partition, classes *core.Classes) error {
	k, lambda := o.K, o.Lambda
	C := sp.Blocks()
	if err := dl.CheckMemory(m.Name(), odlPlan(info, m.set, C, k), "k or the training set"); err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(o.Seed, 0x0d1))
	Q, Yr, err := dl.ReduceSpan(ctx, Y, m.set)
	if err != nil {
		return err
	}
	if Q != nil {
		Y = Yr
	}
	d, _ := Y.Dims()
	D := mat.NewDense(d, C*k, nil)
	Ds := make([]*mat.Dense, C)
	Yc := make([]*mat.Dense, C)
	Xc := make([]*mat.Dense, C)
	col := make([]float64, d)
	for c := 0; c < C; c++ {
		lo, hi := sp.Block(c)
		Yc[c] = Y.Slice(0, d, lo, hi).(*mat.Dense)
		Ds[c] = D.Slice(0, d, c*k, (c+1)*k).(*mat.Dense)
		Xc[c] = mat.NewDense(k, hi-lo, nil)
		for j, p := range rng.Perm(hi - lo)[:k] {
			mat.Col(col, p, Yc[c])
			nrm := floats.Norm(col, 2)
			if nrm == 0 {
				for i := range col {
					col[i] = rng.NormFloat64()
				}
				nrm = floats.Norm(col, 2)
			}
			floats.Scale(1/nrm, col)
			Ds[c].SetCol(j, col)
		}
	}
	E := mat.NewDense(d, k, nil)
	F := mat.NewDense(k, k, nil)
	var du core.DictUpdater
	fi, err := dl.RunOuter(ctx, dl.Loop{Iters: o.Iters, Progress: o.Progress, Start: start}, func(_ int, wantCost bool) (lrsdl.Cost, error) {
		var cost lrsdl.Cost
		for c := 0; c < C; c++ {
			old := mat.DenseCopyOf(Xc[c])
			before := lassoCost(Ds[c], Yc[c], old, lambda).Total
			if err := core.Lasso(ctx, Xc[c], Ds[c], Yc[c], lambda, core.LassoOptions{}); err != nil {
				return cost, err
			}
			if lassoCost(Ds[c], Yc[c], Xc[c], lambda).Total > before {
				Xc[c].Copy(old) // FISTA stopped short of the warm start
			}
			E.Mul(Yc[c], Xc[c].T())
			F.Mul(Xc[c], Xc[c].T())
			Dn := mat.DenseCopyOf(Ds[c])
			if err := du.UpdateContext(ctx, Dn, E, F, core.UpdateDictOptions{}); err != nil {
				return cost, err
			}
			Ds[c].Copy(Dn)
			if wantCost {
				cost = blAddCost(cost, lassoCost(Ds[c], Yc[c], Xc[c], lambda))
			}
		}
		return cost, nil
	})
	m.info = fi
	if err != nil {
		return err
	}
	if Q != nil {
		D = Q.Expand(D)
	}
	m.m = classDict{classes: classes, part: dl.BlockPartition(C, k), D: D}
	m.res = o
	m.info.Elapsed = time.Since(start)
	return nil
}

// transformRaw is Transform on samples as given.
func (m *ODL) transformRaw(Y mat.Matrix) (*mat.Dense, error) {
	return m.transform(context.Background(), Y)
}

func (m *ODL) transform(ctx context.Context, Y mat.Matrix) (*mat.Dense, error) {
	if err := m.m.check("ODL", Y); err != nil {
		return nil, err
	}
	_, K := m.m.D.Dims()
	_, n := Y.Dims()
	X := mat.NewDense(K, n, nil)
	err := core.Lasso(ctx, X, m.m.D, Y, m.res.Lambda, core.LassoOptions{ADMM: true})
	return X, err
}

// Predict returns the label of each column of Y.
func (m *ODL) Predict(Y mat.Matrix) ([]int, error) { return m.PredictContext(context.Background(), Y) }

// predictRaw is PredictContext on samples as given.
func (m *ODL) predictRaw(ctx context.Context, Y mat.Matrix) ([]int, error) {
	S, err := m.decide(ctx, Y)
	if err != nil {
		return nil, err
	}
	return argmaxLabels(S, m.m.classes), nil
}

func (m *ODL) decide(ctx context.Context, Y mat.Matrix) (*mat.Dense, error) {
	if m.m.D != nil && m.m.classes.Len() == 0 {
		return nil, fmt.Errorf("methods: ODL was learned without labels and cannot predict (use Transform)")
	}
	X, err := m.transform(ctx, Y)
	if err != nil {
		return nil, err
	}
	return m.m.residualScores(Y, X), nil
}

// decideRaw is DecisionFunction on samples as given.
func (m *ODL) decideRaw(Y mat.Matrix) (*mat.Dense, error) { return m.decide(bg, Y) }

// PredictProba returns softmax(DecisionFunction/T) per column.
func (m *ODL) PredictProba(Y mat.Matrix) (*mat.Dense, error) { return m.proba(m.DecisionFunction(Y)) }

// Classes returns the class labels in increasing order.
func (m *ODL) Classes() []int { return m.m.classList() }

// Cost returns Σ_c ½‖Y_c − D_cX_c‖²_F + λ‖X_c‖₁ ("fidelity", "l1"), X_c
// the lasso codes of class c on D_c; after Learn, ½‖Y − DX‖²_F + λ‖X‖₁.
func (m *ODL) Cost(Y mat.Matrix, labels []int) (lrsdl.Cost, error) {
	Y = normalized(Y, !m.res.NoNormalize)
	if err := m.m.check("ODL", Y); err != nil {
		return lrsdl.Cost{}, err
	}
	lambda := m.res.Lambda
	if m.m.classes.Len() == 0 {
		X, err := m.Transform(Y)
		if err != nil {
			return lrsdl.Cost{}, err
		}
		return lassoCost(m.m.D, Y, X, lambda), nil
	}
	_, n := Y.Dims()
	if len(labels) != n {
		return lrsdl.Cost{}, fmt.Errorf("methods: %d labels for %d samples", len(labels), n)
	}
	g, err := core.GroupWith(m.m.classes, labels)
	if err != nil {
		return lrsdl.Cost{}, err
	}
	Ys := dl.PermuteColumns(Y, g.Perm)
	d, _ := Ys.Dims()
	var cost lrsdl.Cost
	for c := 0; c < g.Part.Blocks(); c++ {
		lo, hi := g.Part.Block(c)
		a0, a1 := m.m.part.Block(c)
		Dc := m.m.D.Slice(0, d, a0, a1).(*mat.Dense)
		Yc := Ys.Slice(0, d, lo, hi)
		Xc := mat.NewDense(a1-a0, hi-lo, nil)
		if err := core.Lasso(context.Background(), Xc, Dc, Yc, lambda, core.LassoOptions{}); err != nil {
			return lrsdl.Cost{}, err
		}
		cost = blAddCost(cost, lassoCost(Dc, Yc, Xc, lambda))
	}
	return cost, nil
}

// Atoms returns D, its atom partition and a nil D0; see Dictionary.
func (m *ODL) Atoms() (D *mat.Dense, part core.Partition, D0 *mat.Dense) {
	return m.m.D, m.m.part, nil
}

// stateBody returns the learned dictionary and classes.
func (m *ODL) stateBody() (*lrsdl.State, error) { return m.m.state(m.Name(), &m.res, nil) }

// setStateBody restores a state returned by State.
func (m *ODL) setStateBody(s *lrsdl.State) error {
	var o ODLOptions
	var b classDict
	if _, err := b.setState(m.Name(), s, &o); err != nil {
		return err
	}
	o.Progress = m.Options.Progress
	m.Options, m.res, m.m, m.info = o, o, b, lrsdl.FitInfo{}
	return nil
}

// blAddCost adds the terms of b to those of a with the same names.
func blAddCost(a, b lrsdl.Cost) lrsdl.Cost {
	if a.Terms == nil {
		a.Terms = append([]lrsdl.Term(nil), b.Terms...)
		a.Total = b.Total
		return a
	}
	for i := range a.Terms {
		a.Terms[i].Value += b.Terms[i].Value
	}
	a.Total += b.Total
	return a
}

// odlPlan returns the floats ODL's learn allocates at most for C blocks of
// k atoms (K = C·k) on dr rows (dl.SpanRows): the larger of the span's
// factorisation (d·N, the span, and 2·N² of its work, when reduced) and
// training:
//
//	d·N, or the span and D = Q·D_r (d·K) when reduced (the samples are then dropped)
//	dr·K + k·N   the dictionaries and the codes
//	4·dr·k       one class's products and update
//	2·dr·N/C     the residuals of a class's costs
//
// or, if larger, Fit's check of the codes (fitCodes): the samples, D, the
// Gram matrix DᵀD and the lasso codes of zeroCodesSamples samples.
func odlPlan(info dl.Info, set dl.Settings, C, k int) float64 {
	d, N, dr := float64(info.Dim), float64(info.N), dl.SpanRows(info, set)
	K := float64(C * k)
	data, reduce := d*N, 0.0
	if span := dl.SpanFloats(info, set); span > 0 {
		data, reduce = span+d*K, d*N+span+2*N*N
	}
	check := d*N + d*K + K*K + 6*K*zeroCodesSamples
	return max(reduce, check, data+dr*K+float64(k)*N+4*dr*float64(k)+2*dr*N/float64(C))
}
