package methods

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/core"
	"github.com/lrsdl/lrsdl/methods/internal/dl"
)

func init() { register("SRRS", func() lrsdl.Model { return &SRRS{} }) }

// SRRSOptions controls SRRS. The zero value means the defaults, chosen by
// cross-validation on training data (see bench/studies/defaults); Off sets
// a literal 0 where the range allows it.
type SRRSOptions struct {
	P           int                `json:"p"`                      // subspace dimension p ≥ 1; zero means C − 1, at most the rank of the training set
	Lambda1     float64            `json:"lambda1"`                // ℓ2,1 weight λ1 of the error; zero means 1
	Lambda2     float64            `json:"lambda2"`                // weight λ2 of the supervised term; zero means 0.1
	Eta         float64            `json:"eta"`                    // weight η of ‖PᵀAZ‖²_F in the supervised term; zero means 0
	Mu          float64            `json:"mu"`                     // initial ALM penalty μ0; zero means 0.1
	Rho         float64            `json:"rho"`                    // growth ρ > 1 of the penalty; zero means 1.5
	Iters       int                `json:"iters"`                  // ALM iterations at most; zero means 200
	Tol         float64            `json:"tol"`                    // stop when both constraint residuals are at most Tol·‖X‖_F; zero means 1e-3
	Clean       bool               `json:"clean"`                  // match test samples against the recovered Pᵀ(X − E) instead of PᵀX
	Rule        string             `json:"rule"`                   // prediction: "mean" (nearest class mean) or "nn" (nearest training sample); empty means "mean"
	Seed        uint64             `json:"seed"`                   // unused: SRRS is deterministic
	NoNormalize bool               `json:"no_normalize,omitempty"` // use the samples as given, not scaled to unit ℓ2 norm
	Progress    lrsdl.ProgressFunc `json:"-"`                      // called after each ALM iteration
}

func (o *SRRSOptions) spec() optSpec {
	return optSpec{method: "SRRS", opts: []opt{
		{name: "p", doc: "dimension of the learned subspace", i: &o.P, def: 10, min: 1,
			defDoc: "classes − 1, at most the rank of the training set", dataDef: srrsDefaultP},
		{name: "lambda1", doc: "ℓ2,1 weight λ1 of the sample-specific error", f: &o.Lambda1, def: 1, minOpen: true},
		{name: "lambda2", doc: "weight λ2 of the supervised (Fisher) regularisation", f: &o.Lambda2, def: 0.1, off: true},
		{name: "eta", doc: "weight η of ‖PᵀAZ‖² in the supervised term", f: &o.Eta, def: 0, off: true},
		{name: "mu", doc: "initial penalty μ0 of the inexact ALM", f: &o.Mu, def: 0.1, minOpen: true},
		{name: "rho", doc: "growth factor ρ of the ALM penalty", f: &o.Rho, def: 1.5, min: 1, minOpen: true},
		{name: "iters", doc: "ALM iterations at most", i: &o.Iters, def: 200, min: 1},
		{name: "tol", doc: "stop when the constraint residuals relative to ‖X‖ are below this (0: run every iteration)", f: &o.Tol, def: 1e-3, off: true},
		{name: "clean", doc: "match test samples against the recovered training data Pᵀ(X − E)", b: &o.Clean, predict: true},
		{name: "rule", doc: "prediction by the nearest training sample (nn) or class mean (mean)", s: &o.Rule, choices: []string{"mean", "nn"}, predict: true},
		{name: "seed", doc: "unused: SRRS is deterministic", u: &o.Seed},
		normOpt(&o.NoNormalize),
	}}
}

// srrsDefaultP returns the default subspace dimension C − 1, at most
// min(d, N). With η < 1 the matrix Q·M·Qᵀ of the P step has at most
// rank(Π_B) = C − 1 negative eigenvalues, the directions along which the
// between-class scatter exceeds the within-class one; a p below C − 1
// drops some of them and the directions beyond have nonnegative
// eigenvalues. 3-fold cross-validation on the training sets agrees
// (lrsdl eval -cv 3; bench/NOTES.md, srrsDefaultP).
func srrsDefaultP(d dl.Info) float64 {
	return float64(max(1, min(d.Classes-1, d.Dim, d.N)))
}

// srrsMuMax caps the ALM penalty.
const srrsMuMax = 1e8

// SRRS is the supervised regularization-based robust subspace (Li and Fu,
// TNNLS 2016): min ‖Z‖_* + λ1‖E‖_{2,1} + λ2 f(P, Z) s.t. X = XZ + E,
// PᵀP = I, f a Fisher criterion of PᵀXZ; it classifies in the subspace
// PᵀY (Options.Rule).
type SRRS struct {
	Options SRRSOptions
	res     SRRSOptions // resolved options of the last Fit or SetState

	base
	classes *core.Classes
	P       *mat.Dense // d×p projection
	F       *mat.Dense // p×N projected training samples
	lab     []int      // class index of each column of F
}

// Name returns "SRRS".
func (m *SRRS) Name() string { return "SRRS" }

// fitRaw is Fit on samples as given.
func (m *SRRS) fitRaw(ctx context.Context, Y mat.Matrix, labels []int) error {
	start := time.Now()
	m.info = lrsdl.FitInfo{}
	o := m.Options
	explicitP := o.P != 0
	Ys, g, _, err := classTrainingSet("SRRS", Y, labels, &o)
	if err != nil {
		return err
	}
	C := g.Classes.Len()
	d, N := Ys.Dims()
	if err := dl.CheckMemory("SRRS", srrsPlan(d, N), "the training set"); err != nil {
		return err
	}
	U, sig, Xh, err := srrsReduce(ctx, Ys, m.set)
	if err != nil {
		return err
	}
	r := len(sig)
	if o.P > r {
		if explicitP {
			return &OptionError{Method: "SRRS", Name: "p", Value: fmt.Sprint(o.P), Reason: fmt.Sprintf("must be at most %d, the rank of the training set", r)}
		}
		o.P = r
	}
	s := newSRRSTrain(Xh, sig, g.Part, o)
	m.info.Stop = lrsdl.StopMaxIters
	for it := 1; it <= o.Iters; it++ {
		err := ctx.Err()
		if err == nil {
			err = abandonable(ctx, s.step)
		}
		converged := err == nil && s.gap() <= lit(o.Tol)
		withCost := o.Progress != nil || converged || it == o.Iters
		var cost lrsdl.Cost
		if err == nil && withCost {
			err = abandonable(ctx, func() error { cost = s.cost(); return nil })
		}
		if err != nil && errors.Is(err, ctx.Err()) {
			m.info.Stop, m.info.Elapsed = lrsdl.StopCancelled, time.Since(start)
			return err // the P step, or an abandoned step, ends on its own
		}
		if err != nil {
			s.waitP()
			return err
		}
		m.info.Iters = it
		if withCost {
			m.info.Cost = cost
		}
		if converged {
			m.info.Stop = lrsdl.StopConverged
		}
		if o.Progress != nil {
			p := lrsdl.Progress{Iter: it, Cost: m.info.Cost, Elapsed: time.Since(start)}
			if converged || it == o.Iters {
				p.Stop = m.info.Stop
			}
			o.Progress(p)
		}
		if converged {
			break
		}
	}
	s.waitP()
	var P, F mat.Dense
	P.Mul(U, s.Ph)
	feat := s.Xh
	if o.Clean {
		feat = s.sigQ(s.Z)
	}
	F.Mul(s.Ph.T(), feat)
	lab := make([]int, N)
	for c := 0; c < C; c++ {
		s0, s1 := g.Part.Block(c)
		for j := s0; j < s1; j++ {
			lab[j] = c
		}
	}
	m.res, m.classes, m.P, m.F, m.lab = o, g.Classes, &P, &F, lab
	m.info.Elapsed = time.Since(start)
	return nil
}

// Params lists the options, resolved once trained.
func (m *SRRS) Params() []lrsdl.Param { return listParams(m.Classes() != nil, &m.Options, &m.res) }

// SetParam sets the named option from its text form.
func (m *SRRS) SetParam(name, value string) error {
	return setParam(m.Classes() != nil, &m.Options, &m.res, name, value)
}

// SetProgress sets the function called after each ALM iteration.
func (m *SRRS) SetProgress(f lrsdl.ProgressFunc) { m.Options.Progress, m.res.Progress = f, f }

// Predict returns the label of each column of Y.
func (m *SRRS) Predict(Y mat.Matrix) ([]int, error) { return m.PredictContext(context.Background(), Y) }

// predictRaw is PredictContext on samples as given.
func (m *SRRS) predictRaw(ctx context.Context, Y mat.Matrix) ([]int, error) {
	S, err := m.decide(ctx, Y)
	if err != nil {
		return nil, err
	}
	return argmaxLabels(S, m.classes), nil
}

// decideRaw is DecisionFunction on samples as given.
func (m *SRRS) decideRaw(Y mat.Matrix) (*mat.Dense, error) { return m.decide(bg, Y) }

// PredictProba returns softmax(DecisionFunction/T) per column.
func (m *SRRS) PredictProba(Y mat.Matrix) (*mat.Dense, error) { return m.proba(m.DecisionFunction(Y)) }

// Classes returns the class labels in increasing order.
func (m *SRRS) Classes() []int {
	if m.P == nil {
		return nil
	}
	return classesOf(m.classes)
}

func (m *SRRS) decide(ctx context.Context, Y mat.Matrix) (*mat.Dense, error) {
	if m.P == nil {
		return nil, ErrNotTrained
	}
	d, p := m.P.Dims()
	if err := dl.TestSet(Y, d); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	_, n := Y.Dims()
	G := mat.NewDense(p, n, nil)
	core.MulTrans(G, m.P, Y)
	F, lab := m.F, m.lab
	if m.res.Rule == "mean" {
		F, lab = srrsMeans(m.F, m.lab, m.classes.Len())
	}
	_, N := F.Dims()
	// ‖f_i − g_j‖² = ‖f_i‖² − 2f_iᵀg_j + ‖g_j‖²; ‖g_j‖² is common to all i.
	FG := mat.NewDense(N, n, nil)
	blas64.Gemm(blas.Trans, blas.NoTrans, 1, F.RawMatrix(), G.RawMatrix(), 0, FG.RawMatrix())
	ff := make([]float64, N)
	for i := range ff {
		col := F.ColView(i)
		ff[i] = mat.Dot(col, col)
	}
	S := mat.NewDense(m.classes.Len(), n, nil)
	for c := 0; c < m.classes.Len(); c++ {
		row := S.RawRowView(c)
		for j := range row {
			row[j] = math.Inf(-1)
		}
	}
	for i := 0; i < N; i++ {
		row := S.RawRowView(lab[i])
		for j, g := range FG.RawRowView(i)[:n] {
			row[j] = math.Max(row[j], -(ff[i] - 2*g))
		}
	}
	return S, nil
}

// srrsMeans returns the class means of the columns of F (p×C) and their
// classes 0..C−1.
func srrsMeans(F *mat.Dense, lab []int, C int) (*mat.Dense, []int) {
	p, N := F.Dims()
	M := mat.NewDense(p, C, nil)
	n := make([]float64, C)
	for j := 0; j < N; j++ {
		n[lab[j]]++
		for i := 0; i < p; i++ {
			M.Set(i, lab[j], M.At(i, lab[j])+F.At(i, j))
		}
	}
	cl := make([]int, C)
	for c := range cl {
		cl[c] = c
		for i := 0; i < p; i++ {
			M.Set(i, c, M.At(i, c)/max(n[c], 1))
		}
	}
	return M, cl
}

// transformRaw is Transform on samples as given.
func (m *SRRS) transformRaw(Y mat.Matrix) (*mat.Dense, error) {
	if m.P == nil {
		return nil, ErrNotTrained
	}
	d, p := m.P.Dims()
	if err := dl.TestSet(Y, d); err != nil {
		return nil, err
	}
	_, n := Y.Dims()
	G := mat.NewDense(p, n, nil)
	core.MulTrans(G, m.P, Y)
	return G, nil
}

// Cost returns the supervised term λ2·f(P, Y) ("fisher") of the samples Y
// with known labels, taken as clean (XZ = Y).
func (m *SRRS) Cost(Y mat.Matrix, labels []int) (lrsdl.Cost, error) {
	Y = normalized(Y, !m.res.NoNormalize)
	if m.P == nil {
		return lrsdl.Cost{}, ErrNotTrained
	}
	Ys, sp, err := dl.SortedSet(Y, labels, m.classes, m.P)
	if err != nil {
		return lrsdl.Cost{}, err
	}
	G, err := m.Transform(Ys)
	if err != nil {
		return lrsdl.Cost{}, err
	}
	_, p := m.P.Dims()
	s := &srrsTrain{eta: lit(m.res.Eta), sp: sp, Ph: identity(p)}
	f := lit(m.res.Lambda2) * s.fisher(G)
	return lrsdl.Cost{Total: f, Terms: []lrsdl.Term{{Name: "fisher", Value: f}}}, nil
}

func identity(n int) *mat.Dense {
	I := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		I.Set(i, i, 1)
	}
	return I
}

// stateBody returns the trained model: the options, the projection "P" (d×p),
// the projected training samples "F" (p×N) and their class indices
// "labels" (1×N).
func (m *SRRS) stateBody() (*lrsdl.State, error) {
	if m.P == nil {
		return nil, ErrNotTrained
	}
	return dl.NewState(m.Name(), m.res, m.classes, []string{"P", "F", "labels"}, m.P, m.F, dl.RowOf(m.lab))
}

// setStateBody restores a model returned by State.
func (m *SRRS) setStateBody(s *lrsdl.State) error {
	var o SRRSOptions
	cl, err := decodeState(s, m.Name(), &o, "P", "F", "labels")
	if err != nil {
		return err
	}
	P, F, L := s.Matrices["P"], s.Matrices["F"], s.Matrices["labels"]
	_, p := P.Dims()
	fp, N := F.Dims()
	if lr, lc := L.Dims(); fp != p || lr != 1 || lc != N {
		return fmt.Errorf("methods: SRRS state shapes do not match: P with %d columns, F %d×%d, labels %d×%d", p, fp, N, lr, lc)
	}
	lab := make([]int, N)
	for j := range lab {
		v := L.At(0, j)
		if v != math.Trunc(v) || v < 0 || int(v) >= cl.Len() {
			return fmt.Errorf("methods: SRRS state label %v of sample %d is not a class index below %d", v, j, cl.Len())
		}
		lab[j] = int(v)
	}
	o.Progress = m.Options.Progress
	m.Options, m.res, m.classes, m.P, m.F, m.lab, m.info = o, o, cl, mat.DenseCopyOf(P), mat.DenseCopyOf(F), lab, lrsdl.FitInfo{}
	return nil
}

// srrsPlan returns the floats SRRS's Fit allocates at most on N samples
// of dimension d, reduced to r = min(d, N) coordinates:
//
//	d·r    the basis of the reduction (or the samples, when r = N)
//	9·r·N  the coordinates, the iterates of Z and E, the multipliers, products and the reduction's work
//	4·r²   the eigendecompositions and Gram matrices of the P step
func srrsPlan(d, N int) float64 {
	r, fN := float64(min(d, N)), float64(N)
	return float64(d)*r + 9*r*fN + 4*r*r
}
