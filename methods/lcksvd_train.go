package methods

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/blas"
	"github.com/lrsdl/lrsdl/core"
	"github.com/lrsdl/lrsdl/methods/internal/dl"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// lcksvd is the model of LC-KSVD1 and LC-KSVD2: D (atoms of unit norm,
// class by class), A (K×K) and W (C×K) on the scale of D.
type lcksvd struct {
	m    classDict
	A, W *mat.Dense
	base
}

// fit trains the model. A weight α or β of Off leaves its term out of the
// stacked K-SVD; A is then the ridge regression of Q on the initial codes,
// and W that of H on the final codes, as in LC-KSVD1.
func (l *lcksvd) fit(ctx context.Context, name string, opts *LCKSVDOptions, two bool, Y mat.Matrix, labels []int) error {
	start := time.Now()
	l.info = lrsdl.FitInfo{}
	o := *opts
	Ys, g, info, err := classTrainingSet(name, Y, labels, &o)
	if err != nil {
		return err
	}
	k, T := o.K, o.Sparsity
	C := g.Classes.Len()
	K := C * k
	if T > K {
		return &OptionError{Method: "LCKSVD", Name: "sparsity", Value: fmtNum(float64(T)),
			Reason: fmt.Sprintf("must be at most %d, the atoms of all classes", K)}
	}
	alpha, beta := lit(o.Alpha), lit(o.Beta)
	if err := dl.CheckMemory(name, lcksvdPlan(info, l.set, C, k, alpha > 0, two && beta > 0), "k (atoms per class) or the training set"); err != nil {
		return err
	}
	Qs, Yr, err := dl.ReduceSpan(ctx, Ys, l.set)
	if err != nil {
		return err
	}
	if Qs != nil {
		Ys = Yr
	}
	d, N := Ys.Dims()
	ap := dl.BlockPartition(C, k)
	// D_c by K-SVD on class c, from k random samples of it; the classes
	// are independent and run in parallel once their samples are drawn.
	rng := rand.New(rand.NewPCG(o.Seed, 0x1c5d))
	D := mat.NewDense(d, K, nil)
	col := make([]float64, d)
	picks := make([][]int, C)
	for c := 0; c < C; c++ {
		lo, hi := g.Part.Block(c)
		picks[c] = rng.Perm(hi - lo)[:k]
		for j, p := range picks[c] {
			mat.Col(col, lo+p, Ys)
			D.SetCol(c*k+j, col)
		}
	}
	// D_c's atoms start as samples of class c and K-SVD's updates combine
	// them with its samples, so D_c stays in span(Y_c): when a class has
	// fewer samples than d, its K-SVD runs on Y_c = Q_c·R_c in the
	// coordinates R_c (see dl.ReduceSpan), with the starting atoms the
	// matching columns of R_c, and D_c = Q_c·D_r.
	// K-SVD's sweeps each cost about d·n_c·k (OMP and the atom updates).
	if err := dl.ForClasses(C, d*N*k*max(1, o.InitIters), func(c int) error {
		lo, hi := g.Part.Block(c)
		Yc := Ys.Slice(0, d, lo, hi)
		Dc := mat.DenseCopyOf(D.Slice(0, d, c*k, (c+1)*k))
		Qc, Rc, err := dl.ReduceSpan(ctx, Yc, l.set)
		if err != nil {
			return err
		}
		if Qc != nil {
			r, _ := Rc.Dims()
			Dc = mat.NewDense(r, k, nil)
			for j, p := range picks[c] {
				Dc.SetCol(j, mat.Col(nil, p, Rc))
			}
			Yc = Rc
		}
		if _, err := core.KSVD(ctx, Dc, Yc, min(T, k), o.InitIters, core.KSVDOptions{}); err != nil {
			return err
		}
		if Qc != nil {
			Dc = Qc.Expand(Dc)
		}
		D.Slice(0, d, c*k, (c+1)*k).(*mat.Dense).Copy(Dc)
		return nil
	}); err != nil {
		return err
	}
	X := mat.NewDense(K, N, nil)
	if err := core.OMP(ctx, X, D, Ys, T, 0); err != nil {
		return err
	}
	// A = Q·Xᵀ(XXᵀ + ρI)⁻¹ with Q = P·H (P: K×C, the atoms of each
	// class) is P·W₀, W₀ that of H, so A's rows repeat by class. The label
	// block of the stack lies in range(P) for the data (√α·Q) and the atoms
	// (√α·A) alike, and K-SVD keeps the atoms' label block there (its
	// updates combine data and atoms). Training therefore runs in the
	// orthonormal basis P/√k of range(P): √α·√k·H against √α·√k·W₀, C
	// rows instead of K, with the same inner products, norms and costs.
	_, H := lcTargets(g.Part, ap, g.Class, g.Perm)
	W0, err := lcRidge(H, X, o.Ridge)
	if err != nil {
		return err
	}
	sk := math.Sqrt(float64(k))
	parts, targets, weights, names := []*mat.Dense{D}, []*mat.Dense{Ys}, []float64{1}, []string{"fidelity"}
	coef := []float64{1} // data block b is coef[b]·H for b ≥ 1
	if alpha > 0 {
		Ar := mat.NewDense(C, K, nil)
		Ar.Scale(sk, W0)
		Hk := mat.NewDense(C, N, nil)
		Hk.Scale(sk, H)
		parts, targets, weights, names = append(parts, Ar), append(targets, Hk), append(weights, alpha), append(names, "label")
		coef = append(coef, math.Sqrt(alpha)*sk)
	}
	joint := two && beta > 0
	var W *mat.Dense
	if joint {
		W = W0
		parts, targets, weights, names = append(parts, W), append(targets, H), append(weights, beta), append(names, "classification")
		coef = append(coef, math.Sqrt(beta))
	}
	Gs := lcStack(parts, weights)
	Ysk := lcStack(targets, weights)
	rows := lcRows(parts)
	cls := make([]int, N)
	for j, p := range g.Perm {
		cls[j] = g.Class[p]
	}
	run, err := core.NewKSVDRun(Gs, Ysk, T, core.KSVDOptions{DtY: lcDtY(Ys, rows, coef, cls)})
	if err != nil {
		return err
	}
	var cw lcCostWork
	fi, err := dl.RunOuter(ctx, dl.Loop{Iters: o.Iters, Progress: o.Progress, Start: start}, func(_ int, wantCost bool) (lrsdl.Cost, error) {
		if err := run.Step(ctx); err != nil {
			return lrsdl.Cost{}, err
		}
		if !wantCost {
			return lrsdl.Cost{}, nil
		}
		return cw.cost(Ysk, Gs, run.X, rows, names), nil
	})
	l.info = fi
	if err != nil {
		return err
	}
	X = run.X
	// Split the stacked atoms, A = P·(label block)/(√α·√k), and rescale
	// them so that D's atoms have unit norm.
	D = mat.DenseCopyOf(Gs.Slice(0, d, 0, K))
	scaled := []*mat.Dense{D}
	A := lcExpand(W0, ap, 1) // α Off: the ridge regression of Q
	if alpha > 0 {
		A = lcExpand(Gs.Slice(rows[1], rows[2], 0, K).(*mat.Dense), ap, 1/(math.Sqrt(alpha)*sk))
		scaled = append(scaled, A)
	}
	if joint {
		W = mat.DenseCopyOf(Gs.Slice(rows[len(rows)-2], rows[len(rows)-1], 0, K))
		W.Scale(1/math.Sqrt(beta), W)
		scaled = append(scaled, W)
	}
	for j := 0; j < K; j++ {
		s := mat.Norm(D.ColView(j), 2)
		if s == 0 {
			continue
		}
		for _, M := range scaled {
			v := M.ColView(j).(*mat.VecDense)
			v.ScaleVec(1/s, v)
		}
	}
	if !joint {
		if err := core.OMP(ctx, X, D, Ys, T, 0); err != nil {
			return err
		}
		if W, err = lcRidge(H, X, o.Ridge); err != nil {
			return err
		}
	}
	if Qs != nil {
		D = Qs.Expand(D)
	}
	l.m = classDict{classes: g.Classes, part: ap, D: D}
	l.A, l.W = A, W
	*opts = o
	l.info.Elapsed = time.Since(start)
	return nil
}

// lcDtY returns the product GᵀYs of the stacked atoms G with the stacked
// data Ys = [Y; coef[1]·H; coef[2]·H; ...] (blocks starting at rows), H
// (C×N) the label matrix: column j of H is the indicator of class cls[j],
// so block b adds coef[b]·(G's row of class cls[j] in block b) to column
// j instead of a dense product. The dense part is shared between the
// cores in fixed chunks of columns (dl.MulDense).
func lcDtY(Y *mat.Dense, rows []int, coef []float64, cls []int) func(dst, G *mat.Dense) {
	d, N := Y.Dims()
	var s mat.Dense
	return func(dst, G *mat.Dense) {
		_, K := G.Dims()
		dl.MulDense(dst, G.Slice(0, d, 0, K).T(), Y)
		if len(rows) < 3 {
			return
		}
		C := rows[2] - rows[1]
		s.Reset()
		s.ReuseAs(C, K) // row c: what the class-c samples add
		for b := 1; b+1 < len(rows); b++ {
			for c := 0; c < C; c++ {
				floats.AddScaled(s.RawRowView(c), coef[b], G.RawRowView(rows[b]+c))
			}
		}
		dr := dst.RawMatrix()
		for a := 0; a < K; a++ {
			row := dr.Data[a*dr.Stride : a*dr.Stride+N]
			for j, c := range cls {
				row[j] += s.At(c, a)
			}
		}
	}
}

// lcExpand returns the K×K matrix whose row a is f times row c of B
// (C×K), c the class of atom a in ap: P·B·f for the atom indicator P.
func lcExpand(B *mat.Dense, ap core.Partition, f float64) *mat.Dense {
	_, K := B.Dims()
	A := mat.NewDense(K, K, nil)
	for c := 0; c < ap.Blocks(); c++ {
		lo, hi := ap.Block(c)
		for a := lo; a < hi; a++ {
			floats.ScaleTo(A.RawRowView(a), f, B.RawRowView(c))
		}
	}
	return A
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

// lcCostWork holds lcCost's workspaces, reused while their sizes hold.
type lcCostWork struct {
	ws *blas.SparseWorkspace
	r  mat.Dense
}

// lcCost splits ‖Ys − G·X‖²_F over the row blocks of the stack into the
// named terms.
func lcCost(Ys, G, X *mat.Dense, rows []int, names []string) lrsdl.Cost {
	var w lcCostWork
	return w.cost(Ys, G, X, rows, names)
}

// cost is lcCost in w's workspaces. G·X goes over the non-zeros of the OMP
// codes X: m·nnz(X) multiply-adds instead of m·K·N for the m×K stack G.
func (w *lcCostWork) cost(Ys, G, X *mat.Dense, rows []int, names []string) lrsdl.Cost {
	m, _ := G.Dims()
	K, n := X.Dims()
	if w.ws == nil {
		w.ws = blas.NewSparseWorkspace(K, n)
	} else if k, c := w.ws.Dims(); k != K || c != n {
		w.ws = blas.NewSparseWorkspace(K, n)
	}
	R := dl.Reuse(&w.r, m, n)
	w.ws.Mul(R.RawMatrix(), G.RawMatrix(), X.RawMatrix())
	R.Sub(Ys, R)
	var c lrsdl.Cost
	for i := 0; i+1 < len(rows); i++ {
		v := frobSq(R.Slice(rows[i], rows[i+1], 0, n).(*mat.Dense))
		c.Terms = append(c.Terms, lrsdl.Term{Name: names[i], Value: v})
		c.Total += v
	}
	return c
}

func (l *lcksvd) predict(ctx context.Context, o *LCKSVDOptions, Y mat.Matrix) ([]int, error) {
	S, err := l.decide(ctx, o, Y)
	if err != nil {
		return nil, err
	}
	return argmaxLabels(S, l.m.classes), nil
}

// codes returns the OMP codes (K×n) of the columns of Y on D.
func (l *lcksvd) codes(ctx context.Context, o *LCKSVDOptions, Y mat.Matrix) (*mat.Dense, error) {
	if err := l.m.check("LC-KSVD", Y); err != nil {
		return nil, err
	}
	if math.IsInf(dl.MaxColNorm(Y), 0) { // OMP's residuals would overflow
		return nil, fmt.Errorf("methods: LC-KSVD test samples: squared norm: %w", core.ErrNotFinite)
	}
	_, K := l.m.D.Dims()
	_, n := Y.Dims()
	X := mat.NewDense(K, n, nil)
	return X, core.OMP(ctx, X, l.m.D, Y, o.Sparsity, 0)
}

// decide returns the C×n scores W·x of the OMP codes x of Y.
func (l *lcksvd) decide(ctx context.Context, o *LCKSVDOptions, Y mat.Matrix) (*mat.Dense, error) {
	X, err := l.codes(ctx, o, Y)
	if err != nil {
		return nil, err
	}
	C, _ := l.W.Dims()
	_, n := Y.Dims()
	S := mat.NewDense(C, n, nil)
	S.Mul(l.W, X)
	return S, nil
}

// Classes returns the class labels in increasing order.
func (l *lcksvd) Classes() []int { return l.m.classList() }

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
	Ys := dl.PermuteColumns(Y, g.Perm)
	Q, H := lcTargets(g.Part, l.m.part, g.Class, g.Perm)
	parts, targets, weights := []*mat.Dense{l.m.D, l.A}, []*mat.Dense{Ys, Q}, []float64{1, lit(o.Alpha)}
	names := []string{"fidelity", "label"}
	if two {
		parts, targets, weights = append(parts, l.W), append(targets, H), append(weights, lit(o.Beta))
		names = append(names, "classification")
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
	if err := core.OMP(context.Background(), X, G, Ysk, o.Sparsity, 0); err != nil {
		return lrsdl.Cost{}, err
	}
	return lcCost(Ysk, G, X, lcRows(parts), names), nil
}

func (l *lcksvd) state(name string, o *LCKSVDOptions) (*lrsdl.State, error) {
	if l.m.D == nil {
		return nil, ErrNotTrained
	}
	return l.m.state(name, o, map[string]*mat.Dense{"A": l.A, "W": l.W}, "A", "W")
}

func (l *lcksvd) setState(name string, s *lrsdl.State, o *LCKSVDOptions) error {
	var opts LCKSVDOptions
	var m classDict
	if s != nil && s.Method == "LC-KSVD"+name[len(name)-1:] { // the name of files before v1
		c := *s
		c.Method = name
		s = &c
	}
	extra, err := m.setState(name, s, &opts, "A", "W")
	if err != nil {
		return err
	}
	_, K := m.D.Dims()
	C := m.classes.Len()
	if r, c := extra["A"].Dims(); r != K || c != K {
		return fmt.Errorf("methods: %s state A is %d×%d, want %d×%d", name, r, c, K, K)
	}
	if r, c := extra["W"].Dims(); r != C || c != K {
		return fmt.Errorf("methods: %s state W is %d×%d, want %d×%d", name, r, c, C, K)
	}
	if opts.Sparsity > K {
		return fmt.Errorf("methods: %s state has sparsity %d above its %d atoms", name, opts.Sparsity, K)
	}
	opts.Progress = o.Progress
	*o = opts
	l.m, l.A, l.W, l.info = m, extra["A"], extra["W"], lrsdl.FitInfo{}
	return nil
}

// lcksvdPlan returns the floats LC-KSVD's Fit allocates at most for C
// classes of k atoms (K = C·k) on dr rows (dl.SpanRows), the stack having
// rows = dr + C per label block (label, and classification with joint):
//
//	trainData + dr·K  the samples and the dictionary
//	4·rows·N          the stacked targets and K-SVD's copies and residuals
//	2·rows·K          the stacked dictionary and its residual products
//	3·K·N + K²        the codes, K-SVD's code buffers and Gram matrix
func lcksvdPlan(info dl.Info, set dl.Settings, C, k int, label, joint bool) float64 {
	dr, N, K := dl.SpanRows(info, set), float64(info.N), float64(C*k)
	rows := dr
	for _, b := range []bool{label, joint} {
		if b {
			rows += float64(C)
		}
	}
	return trainData(info, set) + dr*K + 4*rows*N + 2*rows*K + 3*K*N + K*K
}
