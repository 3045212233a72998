package methods

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/core"
)

func init() {
	register("LCKSVD1", func() lrsdl.Classifier { return &LCKSVD1{} })
	register("LCKSVD2", func() lrsdl.Classifier { return &LCKSVD2{} })
}

// LCKSVDOptions configures LCKSVD1 and LCKSVD2. The zero value means the
// defaults, the authors' settings for AR gender.
type LCKSVDOptions struct {
	K         int     `json:"k"`          // atoms per class; zero means 25
	Sparsity  int     `json:"sparsity"`   // OMP sparsity T; zero means 20
	Alpha     float64 `json:"alpha"`      // label-consistency weight α; zero means 0.01
	Beta      float64 `json:"beta"`       // classification weight β (LC-KSVD2); zero means 0.01
	Ridge     float64 `json:"ridge"`      // ridge weight of the regressions for A and W; zero means 1
	Iters     int     `json:"iters"`      // K-SVD iterations on the stacked problem; zero means 50
	InitIters int     `json:"init_iters"` // K-SVD iterations per class to initialise D; zero means 10
	Seed      uint64  `json:"seed"`       // seed of the initial atom choice

	// Progress, if set, is called after every K-SVD iteration of training.
	Progress lrsdl.ProgressFunc `json:"-"`
}

func (o *LCKSVDOptions) k() int         { return blDefault(o.K, 25) }
func (o *LCKSVDOptions) t() int         { return blDefault(o.Sparsity, 20) }
func (o *LCKSVDOptions) alpha() float64 { return blDefault(o.Alpha, 0.01) }
func (o *LCKSVDOptions) beta() float64  { return blDefault(o.Beta, 0.01) }
func (o *LCKSVDOptions) ridge() float64 { return blDefault(o.Ridge, 1) }
func (o *LCKSVDOptions) iters() int     { return blDefault(o.Iters, 50) }
func (o *LCKSVDOptions) initIters() int { return blDefault(o.InitIters, 10) }
func (o *LCKSVDOptions) validate() error {
	if o.K < 0 || o.Sparsity < 0 || o.Iters < 0 || o.InitIters < 0 {
		return fmt.Errorf("methods: LC-KSVD options k=%d, sparsity=%d, iters=%d, init_iters=%d must not be negative",
			o.K, o.Sparsity, o.Iters, o.InitIters)
	}
	for _, v := range []float64{o.Alpha, o.Beta, o.Ridge} {
		if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("methods: LC-KSVD options alpha=%v, beta=%v, ridge=%v must be finite and non-negative", o.Alpha, o.Beta, o.Ridge)
		}
	}
	return nil
}

// LCKSVD1 is label-consistent K-SVD (Jiang, Lin and Davis) without the
// classifier in the objective: it learns D = [D_1..D_C] and A by K-SVD on
//
//	min ‖Y − DX‖²_F + α‖Q − AX‖²_F  subject to ‖xᵢ‖₀ ≤ T,
//
// i.e. on the stacked data [Y; √α·Q] with the stacked atoms [D; √α·A]
// normalised, where Q (K×N) has qᵢ = 1 on the atoms of sample i's class.
// D starts from K-SVD run on each class, A from ridge regression of Q on
// the OMP codes. After learning, D's atoms are renormalised (A scaled
// alike) and the linear classifier W is fitted by ridge regression of the
// label matrix H on the OMP codes of the training set:
// W = H·Xᵀ(XXᵀ + ρI)⁻¹. Predict labels y by argmax W·x, x the OMP code of
// y over D with sparsity T. When d > 1.2·N, training runs on the N×N
// factor R of Y = QR and D = Q·D_r (the same model; see reduceSpan).
type LCKSVD1 struct {
	Options LCKSVDOptions
	lc      lcksvd
}

// LCKSVD2 is LCKSVD1 with the classifier learned jointly:
//
//	min ‖Y − DX‖²_F + α‖Q − AX‖²_F + β‖H − WX‖²_F  subject to ‖xᵢ‖₀ ≤ T,
//
// by K-SVD on [Y; √α·Q; √β·H], W initialised by ridge regression too.
type LCKSVD2 struct {
	Options LCKSVDOptions
	lc      lcksvd
}

// Name returns "LC-KSVD1".
func (m *LCKSVD1) Name() string { return "LC-KSVD1" }

// Name returns "LC-KSVD2".
func (m *LCKSVD2) Name() string { return "LC-KSVD2" }

// Config returns a pointer to m.Options.
func (m *LCKSVD1) Config() any { return &m.Options }

// Config returns a pointer to m.Options.
func (m *LCKSVD2) Config() any { return &m.Options }

// Fit learns D, A and W from the columns of Y; see LCKSVD1.
func (m *LCKSVD1) Fit(ctx context.Context, Y mat.Matrix, labels []int) error {
	return m.lc.fit(ctx, &m.Options, false, Y, labels)
}

// Fit learns D, A and W from the columns of Y; see LCKSVD2.
func (m *LCKSVD2) Fit(ctx context.Context, Y mat.Matrix, labels []int) error {
	return m.lc.fit(ctx, &m.Options, true, Y, labels)
}

// Predict returns argmax W·x for the OMP code x of each column of Y.
func (m *LCKSVD1) Predict(Y mat.Matrix) ([]int, error) { return m.lc.predict(&m.Options, Y) }

// Predict returns argmax W·x for the OMP code x of each column of Y.
func (m *LCKSVD2) Predict(Y mat.Matrix) ([]int, error) { return m.lc.predict(&m.Options, Y) }

// Cost returns the training objective at the learned model with the OMP
// codes of the stacked [Y; √α·Q]: terms "fidelity" ‖Y − DX‖²_F and "label"
// α‖Q − AX‖²_F.
func (m *LCKSVD1) Cost(Y mat.Matrix, labels []int) (lrsdl.Cost, error) {
	return m.lc.cost(&m.Options, false, Y, labels)
}

// Cost returns the training objective at the learned model with the OMP
// codes of the stacked [Y; √α·Q; √β·H]: terms "fidelity" ‖Y − DX‖²_F,
// "label" α‖Q − AX‖²_F and "classification" β‖H − WX‖²_F.
func (m *LCKSVD2) Cost(Y mat.Matrix, labels []int) (lrsdl.Cost, error) {
	return m.lc.cost(&m.Options, true, Y, labels)
}

// Atoms returns D = [D_1..D_C], its atom partition and no shared dictionary.
func (m *LCKSVD1) Atoms() (D *mat.Dense, part core.Partition, D0 *mat.Dense) {
	return m.lc.m.D, m.lc.m.part, nil
}

// Atoms returns D = [D_1..D_C], its atom partition and no shared dictionary.
func (m *LCKSVD2) Atoms() (D *mat.Dense, part core.Partition, D0 *mat.Dense) {
	return m.lc.m.D, m.lc.m.part, nil
}

// State returns D, A, W and the classes.
func (m *LCKSVD1) State() (*lrsdl.State, error) { return m.lc.state(m.Name(), &m.Options) }

// State returns D, A, W and the classes.
func (m *LCKSVD2) State() (*lrsdl.State, error) { return m.lc.state(m.Name(), &m.Options) }

// SetState restores a state returned by State.
func (m *LCKSVD1) SetState(s *lrsdl.State) error { return m.lc.setState(m.Name(), s, &m.Options) }

// SetState restores a state returned by State.
func (m *LCKSVD2) SetState(s *lrsdl.State) error { return m.lc.setState(m.Name(), s, &m.Options) }

// lcksvd is the model of LC-KSVD1 and LC-KSVD2: D (atoms of unit norm,
// class by class), A (K×K) and W (C×K) on the scale of D.
type lcksvd struct {
	m    blModel
	A, W *mat.Dense
}

func (l *lcksvd) fit(ctx context.Context, o *LCKSVDOptions, two bool, Y mat.Matrix, labels []int) error {
	if err := o.validate(); err != nil {
		return err
	}
	k, T := o.k(), o.t()
	Ys, g, err := classSet("LC-KSVD", Y, labels, k)
	if err != nil {
		return err
	}
	C := g.Classes.Len()
	K := C * k
	if T > K {
		return fmt.Errorf("methods: LC-KSVD sparsity %d exceeds the %d atoms", T, K)
	}
	start := time.Now()
	Qs, Yr := reduceSpan(Ys)
	if Qs != nil {
		Ys = Yr
	}
	d, N := Ys.Dims()
	ap := blockPartition(C, k)
	// D_c by K-SVD on class c, from k random samples of it.
	rng := rand.New(rand.NewPCG(o.Seed, 0x1c5d))
	D := mat.NewDense(d, K, nil)
	col := make([]float64, d)
	for c := 0; c < C; c++ {
		lo, hi := g.Part.Block(c)
		Dc := mat.NewDense(d, k, nil)
		for j, p := range rng.Perm(hi - lo)[:k] {
			mat.Col(col, lo+p, Ys)
			Dc.SetCol(j, col)
		}
		if _, err := core.KSVD(ctx, Dc, Ys.Slice(0, d, lo, hi), min(T, k), o.initIters(), core.KSVDOptions{}); err != nil {
			return err
		}
		D.Slice(0, d, c*k, (c+1)*k).(*mat.Dense).Copy(Dc)
	}
	X := mat.NewDense(K, N, nil)
	if err := core.OMP(ctx, X, D, Ys, T, 0); err != nil {
		return err
	}
	Q, H := lcTargets(g.Part, ap, g.Class, g.Perm)
	A, err := lcRidge(Q, X, o.ridge())
	if err != nil {
		return err
	}
	parts := []*mat.Dense{D, A}
	targets := []*mat.Dense{Ys, Q}
	weights := []float64{1, o.alpha()}
	if two {
		W, err := lcRidge(H, X, o.ridge())
		if err != nil {
			return err
		}
		parts, targets, weights = append(parts, W), append(targets, H), append(weights, o.beta())
	}
	Gs := lcStack(parts, weights)
	Ysk := lcStack(targets, weights)
	rows := lcRows(parts)
	X, err = core.KSVD(ctx, Gs, Ysk, T, o.iters(), core.KSVDOptions{Progress: func(it int, G, X *mat.Dense) {
		if o.Progress != nil {
			o.Progress(lrsdl.Progress{Iter: it, Cost: lcCost(Ysk, G, X, rows), Elapsed: time.Since(start)})
		}
	}})
	if err != nil {
		return err
	}
	// Split the stacked atoms and rescale them so that D's atoms have
	// unit norm.
	D = mat.DenseCopyOf(Gs.Slice(0, d, 0, K))
	A = mat.DenseCopyOf(Gs.Slice(rows[1], rows[2], 0, K))
	A.Scale(1/math.Sqrt(o.alpha()), A)
	var W *mat.Dense
	if two {
		W = mat.DenseCopyOf(Gs.Slice(rows[2], rows[3], 0, K))
		W.Scale(1/math.Sqrt(o.beta()), W)
	}
	for j := 0; j < K; j++ {
		s := mat.Norm(D.ColView(j), 2)
		if s == 0 {
			continue
		}
		for _, M := range []*mat.Dense{D, A, W} {
			if M != nil {
				v := M.ColView(j).(*mat.VecDense)
				v.ScaleVec(1/s, v)
			}
		}
	}
	if !two {
		if err := core.OMP(ctx, X, D, Ys, T, 0); err != nil {
			return err
		}
		if W, err = lcRidge(H, X, o.ridge()); err != nil {
			return err
		}
	}
	if Qs != nil {
		D = expand(Qs, D)
	}
	l.m = blModel{classes: g.Classes, part: ap, D: D}
	l.A, l.W = A, W
	return nil
}

// lcTargets returns Q (K×N), with Q[a, j] = 1 when atom a belongs to the
// class of the j-th sample in class order, and the label matrix H (C×N).
func lcTargets(sp, ap core.Partition, class, perm []int) (Q, H *mat.Dense) {
	N := sp.Len()
	Q = mat.NewDense(ap.Len(), N, nil)
	H = mat.NewDense(sp.Blocks(), N, nil)
	for j, p := range perm {
		c := class[p]
		H.Set(c, j, 1)
		lo, hi := ap.Block(c)
		for a := lo; a < hi; a++ {
			Q.Set(a, j, 1)
		}
	}
	return Q, H
}

// lcRidge returns T·Xᵀ(XXᵀ + ρI)⁻¹, the ridge regression of the targets T
// (r×N) on the codes X (K×N).
func lcRidge(T, X *mat.Dense, rho float64) (*mat.Dense, error) {
	K, _ := X.Dims()
	r, _ := T.Dims()
	S := mat.NewSymDense(K, nil)
	S.SymOuterK(1, X)
	for i := 0; i < K; i++ {
		S.SetSym(i, i, S.At(i, i)+rho)
	}
	var ch mat.Cholesky
	if !ch.Factorize(S) {
		return nil, fmt.Errorf("methods: LC-KSVD ridge regression is singular; use ridge > 0")
	}
	B := mat.NewDense(K, r, nil)
	B.Mul(X, T.T())
	var Wt mat.Dense
	if err := ch.SolveTo(&Wt, B); err != nil {
		return nil, fmt.Errorf("methods: LC-KSVD ridge regression: %v", err)
	}
	return mat.DenseCopyOf(Wt.T()), nil
}

// lcStack returns [√w₀·M₀; √w₁·M₁; ...].
func lcStack(ms []*mat.Dense, w []float64) *mat.Dense {
	rows := lcRows(ms)
	_, c := ms[0].Dims()
	S := mat.NewDense(rows[len(rows)-1], c, nil)
	for i, m := range ms {
		s := S.Slice(rows[i], rows[i+1], 0, c).(*mat.Dense)
		s.Scale(math.Sqrt(w[i]), m)
	}
	return S
}

// lcRows returns the first row of each block of a stack, and the total.
func lcRows(ms []*mat.Dense) []int {
	rows := []int{0}
	for _, m := range ms {
		r, _ := m.Dims()
		rows = append(rows, rows[len(rows)-1]+r)
	}
	return rows
}

// lcCost splits ‖Ys − G·X‖²_F over the row blocks of the stack into the
// terms fidelity, label and classification.
func lcCost(Ys, G, X *mat.Dense, rows []int) lrsdl.Cost {
	var R mat.Dense
	R.Mul(G, X)
	R.Sub(Ys, &R)
	_, n := R.Dims()
	names := []string{"fidelity", "label", "classification"}
	var c lrsdl.Cost
	for i := 0; i+1 < len(rows); i++ {
		v := blSq(R.Slice(rows[i], rows[i+1], 0, n).(*mat.Dense))
		c.Terms = append(c.Terms, lrsdl.Term{Name: names[i], Value: v})
		c.Total += v
	}
	return c
}

func (l *lcksvd) predict(o *LCKSVDOptions, Y mat.Matrix) ([]int, error) {
	if err := l.m.check("LC-KSVD", Y); err != nil {
		return nil, err
	}
	_, K := l.m.D.Dims()
	_, n := Y.Dims()
	X := mat.NewDense(K, n, nil)
	if err := core.OMP(context.Background(), X, l.m.D, Y, o.t(), 0); err != nil {
		return nil, err
	}
	C, _ := l.W.Dims()
	S := mat.NewDense(C, n, nil)
	S.Mul(l.W, X)
	out := make([]int, n)
	col := make([]float64, C)
	for j := range out {
		mat.Col(col, j, S)
		out[j] = l.m.classes.Labels[floats.MaxIdx(col)]
	}
	return out, nil
}

func (l *lcksvd) cost(o *LCKSVDOptions, two bool, Y mat.Matrix, labels []int) (lrsdl.Cost, error) {
	if err := l.m.check("LC-KSVD", Y); err != nil {
		return lrsdl.Cost{}, err
	}
	_, n := Y.Dims()
	if len(labels) != n {
		return lrsdl.Cost{}, fmt.Errorf("methods: %d labels for %d samples", len(labels), n)
	}
	g, err := core.GroupWith(l.m.classes, labels)
	if err != nil {
		return lrsdl.Cost{}, err
	}
	Ys := permuteColumns(Y, g.Perm)
	Q, H := lcTargets(g.Part, l.m.part, g.Class, g.Perm)
	parts, targets, weights := []*mat.Dense{l.m.D, l.A}, []*mat.Dense{Ys, Q}, []float64{1, o.alpha()}
	if two {
		parts, targets, weights = append(parts, l.W), append(targets, H), append(weights, o.beta())
	}
	G := lcStack(parts, weights)
	Ysk := lcStack(targets, weights)
	_, K := G.Dims()
	// Normalise the stacked atoms as in training; codes scale inversely.
	s := make([]float64, K)
	for j := range s {
		if s[j] = mat.Norm(G.ColView(j), 2); s[j] > 0 {
			v := G.ColView(j).(*mat.VecDense)
			v.ScaleVec(1/s[j], v)
		}
	}
	X := mat.NewDense(K, n, nil)
	if err := core.OMP(context.Background(), X, G, Ysk, o.t(), 0); err != nil {
		return lrsdl.Cost{}, err
	}
	return lcCost(Ysk, G, X, lcRows(parts)), nil
}

func (l *lcksvd) state(name string, o *LCKSVDOptions) (*lrsdl.State, error) {
	if l.m.D == nil {
		return nil, fmt.Errorf("methods: %s is not trained", name)
	}
	return l.m.state(name, o, map[string]*mat.Dense{"A": l.A, "W": l.W}, "A", "W")
}

func (l *lcksvd) setState(name string, s *lrsdl.State, o *LCKSVDOptions) error {
	var opts LCKSVDOptions
	var m blModel
	extra := map[string]*mat.Dense{"A": nil, "W": nil}
	if err := m.setState(name, s, &opts, extra); err != nil {
		return err
	}
	_, K := m.D.Dims()
	C := m.classes.Len()
	if r, c := extra["A"].Dims(); r != K || c != K {
		return fmt.Errorf("methods: %s state A is %d×%d, want %d×%d", name, r, c, K, K)
	}
	if r, c := extra["W"].Dims(); r != C || c != K || C < 2 {
		return fmt.Errorf("methods: %s state W is %d×%d, want %d×%d", name, r, c, C, K)
	}
	opts.Progress = o.Progress
	*o = opts
	l.m, l.A, l.W = m, extra["A"], extra["W"]
	return nil
}
