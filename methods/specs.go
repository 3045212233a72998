package methods

import "github.com/lrsdl/lrsdl"

// The option declarations of each method. The owner of a method moves its
// declaration into the method's file when the method resolves its options
// through it.

func kOpt(k *int, def float64, doc string) opt {
	return opt{name: "k", doc: doc, i: k, def: def, defDoc: "min(" + fmtNum(def) + ", smallest class)",
		min: 1, perClass: true, dataDef: func(d dataInfo) float64 { return min(def, float64(d.minClass)) }}
}

func seedOpt(u *uint64) opt { return opt{name: "seed", doc: "seed of the random initialisation", u: u} }

func (o *FDDLOptions) opts() []opt {
	return []opt{
		kOpt(&o.K, 20, "atoms per class"),
		{name: "lambda1", doc: "ℓ1 weight λ1 of the codes", f: &o.Lambda1, def: 0.01, minOpen: true},
		{name: "lambda2", doc: "Fisher weight λ2", f: &o.Lambda2, def: 0.01, off: true},
		{name: "iters", doc: "outer iterations", i: &o.Iters, def: 30, min: 1},
		{name: "tol", doc: "stop when the cost changes by less than this, relative (0: run every iteration)", f: &o.Tol, def: 1e-4, off: true},
		{name: "x_iters", doc: "FISTA iterations per X step", i: &o.XIters, def: 50, min: 1},
		{name: "x_tol", doc: "FISTA relative tolerance", f: &o.XTol, def: 1e-4, off: true},
		{name: "d_iters", doc: "ODL sweeps per dictionary update", i: &o.DIters, def: 20, min: 1},
		{name: "admm_iters", doc: "ADMM iterations of nuclear-norm updates", i: &o.ADMMIters, def: 20, min: 1},
		{name: "init_iters", doc: "ODL alternations of the initialisation", i: &o.InitIters, def: 5, min: 1},
		{name: "original_x", doc: "O-FDDL-X (class by class) instead of E-FDDL-X", b: &o.OriginalX},
		{name: "original_d", doc: "O-FDDL-D (sub-dictionary by sub-dictionary) instead of E-FDDL-D", b: &o.OriginalD},
		{name: "lc", doc: "predict by local (class-by-class) coding instead of GC", b: &o.LC, predict: true},
		{name: "w", doc: "GC weight of the residual against the code distance", f: &o.W, def: 0.5, off: true, max: 1, predict: true},
		{name: "lambda", doc: "ℓ1 weight of the coding at prediction", f: &o.Lambda, defDoc: "lambda1", minOpen: true, predict: true,
			defFn: func() float64 { return o.Lambda1 }},
		seedOpt(&o.Seed),
	}
}

func (o *FDDLOptions) spec() optSpec { return optSpec{method: "FDDL", opts: o.opts()} }

func (o *LRSDLOptions) spec() optSpec {
	return optSpec{method: "LRSDL", opts: append(o.FDDLOptions.opts(),
		opt{name: "k0", doc: "shared atoms k0", i: &o.K0, def: 10, off: true},
		opt{name: "eta", doc: "nuclear-norm weight η of the shared dictionary", f: &o.Eta, def: 0.1, off: true})}
}

func (o *D2L2R2Options) spec() optSpec {
	return optSpec{method: "D2L2R2", opts: append(o.FDDLOptions.opts(),
		opt{name: "alpha", doc: "weight α of Σ_c ‖D_c‖_*", f: &o.Alpha, def: 0.01, off: true})}
}

// Params, SetParam and SetProgress make every method lrsdl.Configurable.

func (m *FDDL) Params() []lrsdl.Param             { return m.Options.spec().params() }
func (m *FDDL) SetParam(name, value string) error { return m.Options.spec().set(name, value) }
func (m *FDDL) SetProgress(f lrsdl.ProgressFunc)  { m.Options.Progress = f }

func (m *LRSDL) Params() []lrsdl.Param             { return m.Options.spec().params() }
func (m *LRSDL) SetParam(name, value string) error { return m.Options.spec().set(name, value) }
func (m *LRSDL) SetProgress(f lrsdl.ProgressFunc)  { m.Options.Progress = f }

func (m *D2L2R2) Params() []lrsdl.Param             { return m.Options.spec().params() }
func (m *D2L2R2) SetParam(name, value string) error { return m.Options.spec().set(name, value) }
func (m *D2L2R2) SetProgress(f lrsdl.ProgressFunc)  { m.Options.Progress = f }
