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

func (o *SRCOptions) spec() optSpec {
	return optSpec{method: "SRC", opts: []opt{
		{name: "lambda", doc: "sparsity weight λ of the lasso", f: &o.Lambda, def: 0.001, minOpen: true},
		{name: "iters", doc: "FISTA iteration limit of the coding", i: &o.Iters, def: 200, min: 1},
		{name: "seed", doc: "unused: SRC is deterministic", u: &o.Seed},
	}}
}

func (o *ODLOptions) spec() optSpec {
	return optSpec{method: "ODL", opts: []opt{
		kOpt(&o.K, 25, "atoms per class"),
		{name: "lambda", doc: "sparsity weight λ", f: &o.Lambda, def: 0.001, minOpen: true},
		{name: "iters", doc: "outer iterations", i: &o.Iters, def: 20, min: 1},
		seedOpt(&o.Seed),
	}}
}

func (o *LCKSVDOptions) spec() optSpec {
	return optSpec{method: "LCKSVD", opts: []opt{
		kOpt(&o.K, 25, "atoms per class"),
		{name: "sparsity", doc: "OMP sparsity T", i: &o.Sparsity, def: 20, min: 1},
		{name: "alpha", doc: "label-consistency weight α", f: &o.Alpha, def: 0.01, off: true},
		{name: "beta", doc: "classification weight β (LC-KSVD2)", f: &o.Beta, def: 0.01, off: true},
		{name: "ridge", doc: "ridge weight of the regressions for A and W", f: &o.Ridge, def: 1, minOpen: true},
		{name: "iters", doc: "K-SVD iterations on the stacked problem", i: &o.Iters, def: 50, min: 1},
		{name: "init_iters", doc: "K-SVD iterations per class of the initialisation", i: &o.InitIters, def: 10, min: 1},
		seedOpt(&o.Seed),
	}}
}

func (o *DLSIOptions) spec() optSpec {
	return optSpec{method: "DLSI", opts: []opt{
		kOpt(&o.K, 25, "atoms per class"),
		{name: "lambda", doc: "ℓ1 weight λ", f: &o.Lambda, def: 0.001, minOpen: true},
		{name: "eta", doc: "incoherence weight η", f: &o.Eta, def: 0.05, off: true},
		{name: "iters", doc: "outer iterations", i: &o.Iters, def: 15, min: 1},
		{name: "original_d", doc: "O-DLSI-D (column by column) instead of E-DLSI-D (ADMM)", b: &o.OriginalD},
		seedOpt(&o.Seed),
	}}
}

func (o *COPAROptions) spec() optSpec {
	return optSpec{method: "COPAR", opts: []opt{
		kOpt(&o.K, 20, "atoms per class"),
		{name: "k0", doc: "shared atoms k0", i: &o.K0, def: 10, off: true},
		{name: "lambda", doc: "ℓ1 weight λ", f: &o.Lambda, def: 0.001, minOpen: true},
		{name: "eta", doc: "incoherence weight η", f: &o.Eta, def: 0.01, off: true},
		{name: "iters", doc: "outer iterations", i: &o.Iters, def: 15, min: 1},
		{name: "original_d", doc: "O-COPAR-D (column by column) instead of E-COPAR-D (ADMM)", b: &o.OriginalD},
		{name: "coding", doc: "prediction by global (gc) or local (lc) coding", s: &o.Coding, choices: []string{"lc", "gc"}, predict: true},
		seedOpt(&o.Seed),
	}}
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

func (m *SRC) Params() []lrsdl.Param             { return m.Options.spec().params() }
func (m *SRC) SetParam(name, value string) error { return m.Options.spec().set(name, value) }
func (m *SRC) SetProgress(lrsdl.ProgressFunc)    {}

func (m *ODL) Params() []lrsdl.Param             { return m.Options.spec().params() }
func (m *ODL) SetParam(name, value string) error { return m.Options.spec().set(name, value) }
func (m *ODL) SetProgress(f lrsdl.ProgressFunc)  { m.Options.Progress = f }

func (m *LCKSVD1) Params() []lrsdl.Param             { return m.Options.spec().params() }
func (m *LCKSVD1) SetParam(name, value string) error { return m.Options.spec().set(name, value) }
func (m *LCKSVD1) SetProgress(f lrsdl.ProgressFunc)  { m.Options.Progress = f }

func (m *LCKSVD2) Params() []lrsdl.Param             { return m.Options.spec().params() }
func (m *LCKSVD2) SetParam(name, value string) error { return m.Options.spec().set(name, value) }
func (m *LCKSVD2) SetProgress(f lrsdl.ProgressFunc)  { m.Options.Progress = f }

func (m *DLSI) Params() []lrsdl.Param             { return m.Options.spec().params() }
func (m *DLSI) SetParam(name, value string) error { return m.Options.spec().set(name, value) }
func (m *DLSI) SetProgress(f lrsdl.ProgressFunc)  { m.Options.Progress = f }

func (m *COPAR) Params() []lrsdl.Param             { return m.Options.spec().params() }
func (m *COPAR) SetParam(name, value string) error { return m.Options.spec().set(name, value) }
func (m *COPAR) SetProgress(f lrsdl.ProgressFunc)  { m.Options.Progress = f }
