package methods

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/core"
	"github.com/lrsdl/lrsdl/internal/cvhook"
	"github.com/lrsdl/lrsdl/methods/internal/dl"
	"github.com/lrsdl/lrsdl/methods/internal/fisher"
	"gonum.org/v1/gonum/mat"
)

// fisherOptions are the options of FDDL, LRSDL and D2L2R2 (pointers to
// them): their declaration and, once resolved, the training parameters.
type fisherOptions interface {
	spec() optSpec
	params() fisher.Params
}

// paramsOf resolves o in place (defaults and ranges; info, when not nil,
// gives the data-aware ones) and returns its training parameters.
func paramsOf(o fisherOptions, info *dl.Info) (fisher.Params, error) {
	if err := o.spec().resolve(info); err != nil {
		return fisher.Params{}, err
	}
	return o.params(), nil
}

// fisherModel is what FDDL, LRSDL and D2L2R2 share: the Fisher engine's
// model, and the methods that do not depend on their options.
type fisherModel struct {
	fm fisher.Model
	calib
	// online holds the matrices named online.* of the state last restored
	// (the online package's minibatch statistics), which State passes on
	// so that a model file of an online model resumes exactly; Fit and
	// Resume drop them.
	online map[string]*mat.Dense
}

// FitInfo describes the last call of Fit.
func (f *fisherModel) FitInfo() lrsdl.FitInfo { return f.fm.Info }

// Atoms returns D, its atom partition and D0 (nil for k0 = 0); see Dictionary.
func (f *fisherModel) Atoms() (D *mat.Dense, part core.Partition, D0 *mat.Dense) { return f.fm.Atoms() }

// SetResumable sets whether Fit keeps the state Resume continues from.
func (f *fisherModel) SetResumable(on bool) { f.fm.SetResumable(on) }

// suspend frees the trained dictionaries (Predict then returns
// ErrNotTrained) but keeps the state of SetResumable; Resume restores them.
func (f *fisherModel) suspend() { f.fm.Suspend() }

// setScoreOnly sets whether Fit and Resume stop at the training state, as
// cross-validation wants: they keep it (setScoreOnly(true) implies
// SetResumable(true)) but leave the model suspended, without forming
// D̄ = Q·D̄_r in the data space; scoreEach predicts from the state. After
// setScoreOnly(false), Resume to the iterations already run forms the
// model.
func (f *fisherModel) setScoreOnly(on bool) { f.fm.SetScoreOnly(on) }

// fit trains the model on the columns of Y with the options o, resolved
// in place against the data.
func (f *fisherModel) fit(ctx context.Context, o fisherOptions, Y mat.Matrix, labels []int) error {
	f.online = nil
	return f.fm.Fit(ctx, o.spec().method, Y, labels, func(info dl.Info) (fisher.Params, error) { return paramsOf(o, &info) })
}

// predict returns the labels of the columns of Y with the options o.
func (f *fisherModel) predict(ctx context.Context, o fisherOptions, Y mat.Matrix) ([]int, error) {
	if err := f.fm.Trained(); err != nil {
		return nil, err
	}
	p, err := paramsOf(o, nil)
	if err != nil {
		return nil, err
	}
	return f.fm.Predict(ctx, p, Y)
}

// transform returns the codes [X; X0] of the columns of Y with the
// options o.
func (f *fisherModel) transform(o fisherOptions, Y mat.Matrix) (*mat.Dense, error) {
	if err := f.fm.Trained(); err != nil {
		return nil, err
	}
	p, err := paramsOf(o, nil)
	if err != nil {
		return nil, err
	}
	return f.fm.Codes(bg, p, Y)
}

// decide returns the class scores of the columns of Y with the options o.
func (f *fisherModel) decide(o fisherOptions, Y mat.Matrix) (*mat.Dense, error) {
	if err := f.fm.Trained(); err != nil {
		return nil, err
	}
	p, err := paramsOf(o, nil)
	if err != nil {
		return nil, err
	}
	return f.fm.Scores(bg, p, Y)
}

// Classes returns the class labels in increasing order.
func (f *fisherModel) Classes() []int {
	if f.fm.Trained() != nil {
		return nil
	}
	return classesOf(f.fm.Classes)
}

// cost returns the cost of the model on (Y, labels) with the options o.
func (f *fisherModel) cost(ctx context.Context, o fisherOptions, Y mat.Matrix, labels []int) (lrsdl.Cost, error) {
	if err := f.fm.Trained(); err != nil {
		return lrsdl.Cost{}, err
	}
	p, err := paramsOf(o, nil)
	if err != nil {
		return lrsdl.Cost{}, err
	}
	return f.fm.Cost(ctx, p, Y, labels)
}

// resume is Resume for the model's options o: it sets o.Iters to iters on
// success.
func (f *fisherModel) resume(ctx context.Context, o *FDDLOptions, name string, Y mat.Matrix, labels []int, iters int) error {
	err := f.fm.Resume(ctx, name, Y, labels, iters, o.Progress)
	if err == nil {
		o.Iters = iters
	}
	return err
}

// predictSets is predictEach for options from opts (a fresh copy for each
// set).
func (f *fisherModel) predictSets(ctx context.Context, Y mat.Matrix, sets []map[string]string, opts func() fisherOptions) ([][]int, error) {
	ps, err := setsParams(sets, opts)
	if err != nil {
		return nil, err
	}
	return f.fm.PredictEach(ctx, Y, ps)
}

// scoreSets is scoreEach for options from opts (a fresh copy for each set).
func (f *fisherModel) scoreSets(ctx context.Context, Y mat.Matrix, sets []map[string]string, opts func() fisherOptions) ([][]int, error) {
	ps, err := setsParams(sets, opts)
	if err != nil {
		return nil, err
	}
	return f.fm.ScoreEach(ctx, opts().spec().method, Y, ps)
}

// state and setState implement lrsdl.Persistent for the Fisher-type models;
// opts are the model's resolved options.
func (f *fisherModel) state(name string, opts any) (*lrsdl.State, error) {
	m := &f.fm
	if err := m.Trained(); err != nil {
		return nil, err
	}
	s, err := dl.NewState(name, opts, m.Classes, []string{"Dbar", "part", "Mc", "m0"}, m.Db, dl.RowOf(m.Part), m.Mc, dl.RowOf(m.M0))
	if err != nil {
		return nil, err
	}
	for _, n := range slices.Sorted(maps.Keys(f.online)) {
		s.Names = append(s.Names, n)
		s.Matrices[n] = mat.DenseCopyOf(f.online[n])
	}
	return s, nil
}

// setState restores f from s, decoding its options into opts (a zero
// value), whose k and k0 (k0 = 0 for FDDL and D2L2R2) the atoms must match.
func (f *fisherModel) setState(name string, s *lrsdl.State, opts fisherOptions) error {
	cl, err := decodeState(s, name, opts, "Dbar", "part", "Mc", "m0")
	if err != nil {
		return err
	}
	p := opts.params()
	Db, pm, mc, m0 := s.Matrices["Dbar"], s.Matrices["part"], s.Matrices["Mc"], s.Matrices["m0"]
	C := cl.Len()
	d, kb := Db.Dims()
	if r, np := pm.Dims(); r != 1 || np != C+1 {
		return fmt.Errorf("methods: %s state has %d classes and a partition of %d×%d entries", name, C, r, np)
	}
	part := make(core.Partition, C+1)
	for i := range part {
		part[i] = int(pm.At(0, i))
		if i > 0 && part[i]-part[i-1] != p.K {
			return fmt.Errorf("methods: %s state has %d atoms in class %d, its options say k=%d", name, part[i]-part[i-1], cl.Labels[i-1], p.K)
		}
	}
	K := part.Len()
	if part[0] != 0 || kb != K+p.K0 {
		return fmt.Errorf("methods: %s state has %d atoms, its options say %d classes × k=%d + k0=%d", name, kb, C, p.K, p.K0)
	}
	if r, c := mc.Dims(); r != K || c != C {
		return fmt.Errorf("methods: %s state shapes do not match: Dbar %d×%d, %d class atoms, Mc %d×%d", name, d, kb, K, r, c)
	}
	if r, c := m0.Dims(); r != 1 || c < p.K0 {
		return fmt.Errorf("methods: %s state m0 is %d×%d, need 1×%d", name, r, c, p.K0)
	}
	f.fm.Restore(cl, d, part, mat.DenseCopyOf(Db), mat.DenseCopyOf(mc), append([]float64(nil), m0.RawRowView(0)[:p.K0]...))
	f.online = nil
	for n, m := range s.Matrices {
		if strings.HasPrefix(n, "online.") && m != nil {
			if f.online == nil {
				f.online = make(map[string]*mat.Dense)
			}
			f.online[n] = mat.DenseCopyOf(m)
		}
	}
	return nil
}

// predictParams returns the parameters of o (a copy of a model's options)
// with the prediction options of set (name → text, as SetParam takes)
// applied in sorted order of name.
func predictParams(o fisherOptions, set map[string]string) (fisher.Params, error) {
	spec := o.spec()
	for _, n := range slices.Sorted(maps.Keys(set)) {
		op, err := spec.find(n)
		if err != nil {
			return fisher.Params{}, err
		}
		if !op.predict {
			return fisher.Params{}, fmt.Errorf("methods: %s option %q acts at training, not at prediction", spec.method, n)
		}
		if err := spec.set(n, set[n]); err != nil {
			return fisher.Params{}, err
		}
	}
	return paramsOf(o, nil)
}

// setsParams returns the prediction parameters of each of sets applied to
// a fresh copy of the options from opts.
func setsParams(sets []map[string]string, opts func() fisherOptions) ([]fisher.Params, error) {
	ps := make([]fisher.Params, len(sets))
	for i, set := range sets {
		p, err := predictParams(opts(), set)
		if err != nil {
			return nil, err
		}
		ps[i] = p
	}
	return ps, nil
}

// Resume continues the last Fit, which SetResumable(true) preceded, on the
// same training set (Y, labels) up to iters outer iterations in total,
// giving the model of a Fit with Options.Iters = iters; FitInfo counts
// every iteration since Fit, and a run stopped by its tolerance stays
// stopped. After an error the model is untrained.
func (m *LRSDL) Resume(ctx context.Context, Y mat.Matrix, labels []int, iters int) error {
	return m.resume(ctx, &m.res.FDDLOptions, m.Name(), normalized(Y, !m.res.NoNormalize), labels, iters)
}

// scoreEach returns the labels predictEach(ctx, Y, sets) would give for
// the model of the training state that Fit or Resume kept (setScoreOnly or
// SetResumable), without forming it: Y is projected once on the span of
// the training set (an r×n matrix, r ≤ N its rank, kept while fits of
// that training set hold their state) and scored against D̄_r (r×K̄) as in
// training; the labels are those of predictEach up to rounding.
func (m *LRSDL) scoreEach(ctx context.Context, Y mat.Matrix, sets []map[string]string) ([][]int, error) {
	return m.scoreSets(ctx, normalized(Y, !m.res.NoNormalize), sets, func() fisherOptions { o := m.res; return &o })
}

// predictEach returns the labels Predict gives for the columns of Y with
// each of sets applied to the options (prediction options only, by name as
// SetParam takes them, e.g. {"w": "0.25"} or {"lc": "true"}); m's options
// do not change. It computes once what the rules share: the GC codes and
// residuals once per coding λ for every w, and the LC coding once per λ.
func (m *LRSDL) predictEach(ctx context.Context, Y mat.Matrix, sets []map[string]string) ([][]int, error) {
	return m.predictSets(ctx, normalized(Y, !m.res.NoNormalize), sets, func() fisherOptions { o := m.res; return &o })
}

// Resume is LRSDL.Resume.
func (m *FDDL) Resume(ctx context.Context, Y mat.Matrix, labels []int, iters int) error {
	return m.resume(ctx, &m.res, m.Name(), normalized(Y, !m.res.NoNormalize), labels, iters)
}

// scoreEach is LRSDL.scoreEach.
func (m *FDDL) scoreEach(ctx context.Context, Y mat.Matrix, sets []map[string]string) ([][]int, error) {
	return m.scoreSets(ctx, normalized(Y, !m.res.NoNormalize), sets, func() fisherOptions { o := m.res; return &o })
}

// predictEach is LRSDL.predictEach.
func (m *FDDL) predictEach(ctx context.Context, Y mat.Matrix, sets []map[string]string) ([][]int, error) {
	return m.predictSets(ctx, normalized(Y, !m.res.NoNormalize), sets, func() fisherOptions { o := m.res; return &o })
}

// Resume is LRSDL.Resume.
func (m *D2L2R2) Resume(ctx context.Context, Y mat.Matrix, labels []int, iters int) error {
	return m.resume(ctx, &m.res.FDDLOptions, m.Name(), normalized(Y, !m.res.NoNormalize), labels, iters)
}

// scoreEach is LRSDL.scoreEach.
func (m *D2L2R2) scoreEach(ctx context.Context, Y mat.Matrix, sets []map[string]string) ([][]int, error) {
	return m.scoreSets(ctx, normalized(Y, !m.res.NoNormalize), sets, func() fisherOptions { o := m.res; return &o })
}

// predictEach is LRSDL.predictEach.
func (m *D2L2R2) predictEach(ctx context.Context, Y mat.Matrix, sets []map[string]string) ([][]int, error) {
	return m.predictSets(ctx, normalized(Y, !m.res.NoNormalize), sets, func() fisherOptions { o := m.res; return &o })
}

// cvFisher is the cross-validation plumbing of LRSDL, FDDL and D2L2R2.
type cvFisher interface {
	Resume(ctx context.Context, Y mat.Matrix, labels []int, iters int) error
	setScoreOnly(on bool)
	scoreEach(ctx context.Context, Y mat.Matrix, sets []map[string]string) ([][]int, error)
}

// cvModel shows a cvFisher to package eval as a cvhook.Model.
type cvModel struct{ cvFisher }

// SetScoreOnly is setScoreOnly.
func (c cvModel) SetScoreOnly(on bool) { c.setScoreOnly(on) }

// ScoreEach is scoreEach.
func (c cvModel) ScoreEach(ctx context.Context, Y mat.Matrix, sets []map[string]string) ([][]int, error) {
	return c.scoreEach(ctx, Y, sets)
}

func init() {
	cvhook.Register(func(c any) cvhook.Model {
		if m, ok := c.(cvFisher); ok {
			return cvModel{m}
		}
		return nil
	})
}

// settings returns the settings of the engine, which tests and benchmarks
// change to compare paths.
func (f *fisherModel) settings() *dl.Settings { return &f.fm.Set }
