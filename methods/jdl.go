package methods

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/blas"
	"github.com/lrsdl/lrsdl/core"
	"github.com/lrsdl/lrsdl/internal/parallel"
	"github.com/lrsdl/lrsdl/methods/internal/dl"
)

func init() {
	register("JDL", func() lrsdl.Model { return &JDL{} })
	register("JDL*", func() lrsdl.Model { return &JDL{star: true} })
}

// JDLOptions controls JDL and JDL*. The zero value means the defaults,
// chosen by cross-validation on training data (see bench/studies/defaults);
// Off sets a literal 0 where the range allows it.
type JDLOptions struct {
	K           int                `json:"k"`                      // atoms per class; zero means min(20, smallest class)
	K0          int                `json:"k0"`                     // shared atoms; zero means 10
	Lambda1     float64            `json:"lambda1"`                // ℓ1 weight λ1; zero means 0.01
	Lambda2     float64            `json:"lambda2"`                // Fisher weight λ2; zero means 0.01
	Lambda      float64            `json:"lambda"`                 // ℓ1 weight of the coding at prediction; zero means lambda1
	Iters       int                `json:"iters"`                  // outer iterations; zero means 15
	Tol         float64            `json:"tol"`                    // stop when the cost changes by at most Tol, relative; zero means 1e-4, Off runs every iteration
	Seed        uint64             `json:"seed"`                   // seed of the initialisation
	NoNormalize bool               `json:"no_normalize,omitempty"` // use the samples as given, not scaled to unit ℓ2 norm
	Progress    lrsdl.ProgressFunc `json:"-"`                      // called after each outer iteration
}

func (o *JDLOptions) spec() optSpec {
	return optSpec{method: "JDL", opts: []opt{
		kOpt(&o.K, 20, "atoms per class"),
		{name: "k0", doc: "shared atoms k0", i: &o.K0, def: 10, min: 1},
		{name: "lambda1", doc: "ℓ1 weight λ1 of the codes", f: &o.Lambda1, def: 0.01, minOpen: true, zeroAt: 1},
		{name: "lambda2", doc: "Fisher weight λ2", f: &o.Lambda2, def: 0.01, off: true},
		lambdaOpt(&o.Lambda, &o.Lambda1),
		itersOpt(&o.Iters, 15),
		tolOpt(&o.Tol),
		seedOpt(&o.Seed),
		normOpt(&o.NoNormalize),
	}}
}

// JDL is joint dictionary learning (Zhou et al., TPAMI 2014): class
// dictionaries D_c and a shared D_0, each class coded on its own and the
// shared atoms only, minimising ½Σ_c ‖Y_c − D_cX_c^c − D_0X_c^0‖²_F +
// λ1‖X̃‖₁ + λ2/2·g(X̃). JDL* (New("JDL*")) predicts by global coding.
type JDL struct {
	Options JDLOptions
	res     JDLOptions // resolved options of the last Fit or SetState

	star bool // JDL*: prediction by global coding
	base
	classes *core.Classes
	D       *mat.Dense     // d×(K+k0): [D_1 … D_C D_0]
	part    core.Partition // C+1 blocks of atoms, the last is D_0
}

// Name returns "JDL", or "JDL*" for the variant with global coding.
func (m *JDL) Name() string {
	if m.star {
		return "JDL*"
	}
	return "JDL"
}

// Atoms returns D, its atom partition and D0; see Dictionary.
func (m *JDL) Atoms() (D *mat.Dense, part core.Partition, D0 *mat.Dense) {
	if m.D == nil {
		return nil, nil, nil
	}
	d, _ := m.D.Dims()
	C := m.part.Blocks() - 1
	lo, hi := m.part.Block(C)
	return mat.DenseCopyOf(m.D.Slice(0, d, 0, lo)), dl.CopyPart(m.part[:C+1]), mat.DenseCopyOf(m.D.Slice(0, d, lo, hi))
}

// fitRaw is Fit on samples as given.
func (m *JDL) fitRaw(ctx context.Context, Y mat.Matrix, labels []int) error {
	start := time.Now()
	m.info = lrsdl.FitInfo{}
	Ys, g, err := dl.TrainingSet(Y, labels)
	if err != nil {
		return err
	}
	C := g.Classes.Len()
	if C < 2 {
		return fmt.Errorf("methods: %s needs at least 2 classes, have %d", m.Name(), C)
	}
	_, N := Ys.Dims()
	o := m.Options
	info := dl.InfoOf(Ys, g)
	if err := o.spec().resolve(&info); err != nil {
		return err
	}
	if N < o.K0 {
		return fmt.Errorf("methods: %s has %d samples, fewer than k0=%d shared atoms", m.Name(), N, o.K0)
	}
	part := dl.BlockPartition(C, o.K, o.K0)
	if err := dl.CheckMemory(m.Name(), jdlPlan(info, m.set, part.Len()), "k, k0 or the training set"); err != nil {
		return err
	}
	Q, Yr, err := dl.ReduceSpan(ctx, Ys, m.set)
	if err != nil {
		return err
	}
	if Q != nil {
		Ys = Yr
	}
	D, err := dl.InitDict(ctx, Ys, g.Part, part, o.Lambda1, rand.New(rand.NewPCG(o.Seed, 0x4a444c)))
	if err != nil {
		return err
	}
	s := newJDLTrain(Ys, g.Part, part, D, o)
	fi, err := dl.RunOuter(ctx, dl.Loop{Iters: o.Iters, Tol: lit(o.Tol), Progress: o.Progress, Start: start},
		func(int, bool) (lrsdl.Cost, error) {
			if err := s.stepXKeep(ctx); err != nil {
				return lrsdl.Cost{}, err
			}
			s.stepD()
			return s.cost(), nil
		})
	m.info = fi
	if err != nil {
		return err
	}
	if Q != nil {
		D = Q.Expand(D)
	}
	m.res, m.classes, m.D, m.part = o, g.Classes, D, part
	m.info.Elapsed = time.Since(start)
	return nil
}

// Params lists the options, resolved once trained.
func (m *JDL) Params() []lrsdl.Param { return listParams(m.Classes() != nil, &m.Options, &m.res) }

// SetParam sets the named option from its text form.
func (m *JDL) SetParam(name, value string) error {
	return setParam(m.Classes() != nil, &m.Options, &m.res, name, value)
}

// SetProgress sets the function called after each outer iteration.
func (m *JDL) SetProgress(f lrsdl.ProgressFunc) { m.Options.Progress, m.res.Progress = f, f }

// jdlTrain holds one JDL training run on the class-sorted samples Y. The
// codes X̃ are zero off the rows of D_c and D_0 in the columns of class c,
// so they are kept compact: X is (k+k0)×N, and column j of class c holds
// rows a_c (the atoms of D_c) of X̃ in its first k rows and rows s (those
// of D_0) in the last k0. Every class has k atoms (dl.BlockPartition).
type jdlTrain struct {
	l1, l2   float64        // λ1, λ2
	Y        *mat.Dense     // d×N
	sp       core.Partition // samples of each class
	part     core.Partition // atoms: C class blocks and D_0
	k        int            // atoms per class
	D        *mat.Dense     // d×K̄
	X        *mat.Dense     // (k+k0)×N, X̃ compact
	G        mat.Dense      // D̄ᵀD̄
	B        mat.Dense      // D̄ᵀY on the code blocks, compact
	E, F     mat.Dense
	R        mat.Dense // the cost's residual
	Xold, Xf mat.Dense // X before JDL-X; X̃ (K̄×N) for the cost
	fista    core.FISTA
	grads    jdlGrad
	pi       core.PowerIter
	du       core.DictUpdater
}

func newJDLTrain(Y *mat.Dense, sp, part core.Partition, D *mat.Dense, o JDLOptions) *jdlTrain {
	_, N := Y.Dims()
	C := sp.Blocks()
	k, k0 := part[1]-part[0], part.Len()-part[C]
	s := &jdlTrain{l1: lit(o.Lambda1), l2: lit(o.Lambda2), Y: Y, sp: sp, part: part, k: k, D: D, X: mat.NewDense(k+k0, N, nil),
		fista: core.FISTA{MaxIter: 100, Tol: 1e-4, Restart: true}}
	s.grads.s = s
	return s
}

// codeBlocks calls f for the blocks of X̃ that may be non-zero: rows
// [a0, a1) of X̃ (compact rows [r0, r1)) in columns [s0, s1), first the
// rows of D_c in the columns of class c for every c, then the rows of D_0
// in all columns.
func (s *jdlTrain) codeBlocks(f func(a0, a1, r0, r1, s0, s1 int)) {
	C := s.sp.Blocks()
	for c := 0; c < C; c++ {
		a0, a1 := s.part.Block(c)
		s0, s1 := s.sp.Block(c)
		f(a0, a1, 0, s.k, s0, s1)
	}
	a0, a1 := s.part.Block(C)
	f(a0, a1, s.k, s.k+a1-a0, 0, s.sp.Len())
}

// full sets s.Xf to X̃.
func (s *jdlTrain) full() *mat.Dense {
	K, N := s.part.Len(), s.sp.Len()
	s.Xf.Reset()
	s.Xf.ReuseAs(K, N)
	xf, x := s.Xf.RawMatrix(), s.X.RawMatrix()
	s.codeBlocks(func(a0, a1, r0, r1, s0, s1 int) {
		for i := 0; i < a1-a0; i++ {
			copy(xf.Data[(a0+i)*xf.Stride+s0:(a0+i)*xf.Stride+s1], x.Data[(r0+i)*x.Stride+s0:(r0+i)*x.Stride+s1])
		}
	})
	return &s.Xf
}

// grad sets g to the gradient of the smooth part of J at W on the code
// blocks (both compact). Since X̃ is zero elsewhere, D̄ᵀD̄W̃ on the rows
// R_c = a_c ∪ s of class c's columns is
//
//	G[R_c, a_c]·W[:k, J_c] + G[R_c, s]·W[k:, J_c],
//
// Σ_c (k+k0)²n_c multiply-adds instead of K̄²N, and ½∇g of the Fisher term
// (core.FisherGrad) needs the means of those rows only: a row of D_c is
// zero outside class c, so its mean over all samples is its sum over J_c
// over N.
func (s *jdlTrain) grad(g, W *mat.Dense) {
	g.Copy(&s.B)
	s.grads.g, s.grads.w = g.RawMatrix(), W.RawMatrix()
	parallel.For(s.sp.Blocks(), &s.grads, (s.k+s.part.Len()-s.part[s.sp.Blocks()])*g.RawMatrix().Rows*g.RawMatrix().Cols)
	if s.l2 > 0 {
		s.fisherShared(g.RawMatrix(), W.RawMatrix())
	}
	s.grads.g, s.grads.w = blas64.General{}, blas64.General{}
}

// jdlGrad computes the gradient of grad on the columns of one class per
// chunk.
type jdlGrad struct {
	s    *jdlTrain
	g, w blas64.General
}

func (j *jdlGrad) Do(c int) {
	s := j.s
	C := s.sp.Blocks()
	s0, s1 := s.sp.Block(c)
	k, kk := s.k, j.g.Rows
	atoms := [2][2]int{{s.part[c], s.part[c+1]}, {s.part[C], s.part[C+1]}}
	rows := [2][2]int{{0, k}, {k, kk}}
	G := s.G.RawMatrix()
	for i, r := range rows {
		out := blas.View(j.g, r[0], r[1], s0, s1)
		for q, a := range atoms {
			beta := 1.0
			if q == 0 {
				beta = -1 // g = G·W − B
			}
			blas64.Gemm(gblas.NoTrans, gblas.NoTrans, 1, blas.View(G, atoms[i][0], atoms[i][1], a[0], a[1]), blas.View(j.w, rows[q][0], rows[q][1], s0, s1), beta, out)
		}
	}
	if s.l2 == 0 {
		return
	}
	// ½∇g = 2x + m − 2m_c on the rows of D_c, m = Σ_{J_c}x/N, m_c = Σ_{J_c}x/n_c.
	N, n := float64(s.sp.Len()), float64(s1-s0)
	for r := 0; r < k; r++ {
		x := j.w.Data[r*j.w.Stride+s0 : r*j.w.Stride+s1]
		out := j.g.Data[r*j.g.Stride+s0 : r*j.g.Stride+s1]
		var sum float64
		for _, v := range x {
			sum += v
		}
		m, mc := sum/N, sum/n
		for i, v := range x {
			out[i] += s.l2 * (2*v + m - 2*mc)
		}
	}
}

// fisherShared adds λ2·½∇g of the Fisher term on the rows of D_0.
func (s *jdlTrain) fisherShared(g, w blas64.General) {
	for r := s.k; r < w.Rows; r++ {
		x := w.Data[r*w.Stride : r*w.Stride+w.Cols]
		out := g.Data[r*g.Stride : r*g.Stride+g.Cols]
		var sum float64
		for _, v := range x {
			sum += v
		}
		m := sum / float64(len(x))
		for c := 0; c < s.sp.Blocks(); c++ {
			s0, s1 := s.sp.Block(c)
			var sc float64
			for _, v := range x[s0:s1] {
				sc += v
			}
			mc := sc / float64(s1-s0)
			for i := s0; i < s1; i++ {
				out[i] += s.l2 * (2*x[i] + m - 2*mc)
			}
		}
	}
}

// stepX runs JDL-X, warm-started from the current codes.
func (s *jdlTrain) stepX(ctx context.Context) error {
	K := s.part.Len()
	kk, N := s.X.Dims()
	d, _ := s.Y.Dims()
	s.G.Reset()
	s.G.ReuseAs(K, K)
	if err := jdlGram(ctx, &s.G, s.D, jdlGramTile); err != nil {
		return err
	}
	s.B.Reset()
	s.B.ReuseAs(kk, N)
	s.codeBlocks(func(a0, a1, r0, r1, s0, s1 int) {
		gemmView(gblas.Trans, gblas.NoTrans, 1, s.D, 0, d, a0, a1, s.Y, 0, d, s0, s1, 0, &s.B, r0, r1, s0, s1)
	})
	_, L := s.pi.MaxEig(&s.G)
	L += 2 * s.l2
	if !(L > 0) {
		return nil
	}
	_, err := s.fista.Solve(ctx, s.X, s.grad, L, s.l1, nil)
	return err
}

// jdlGramTile is the number of multiply-adds of one panel of jdlGram.
const jdlGramTile = 1 << 26

// jdlGram sets G = DᵀD as G.Mul(D.T(), D) does, by panels of columns of G
// of about tile multiply-adds, each one Gemm over all of D's rows, checking
// ctx before each; on cancellation it returns ctx.Err() with G partly set.
func jdlGram(ctx context.Context, G, D *mat.Dense, tile int) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	d, K := D.Dims()
	if K == 0 {
		return nil
	}
	g, a := G.RawMatrix(), D.RawMatrix()
	step := max(1, tile/max(K*d, 1))
	for lo := 0; lo < K; lo += step {
		if lo > 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		hi := min(lo+step, K)
		blas64.Gemm(gblas.Trans, gblas.NoTrans, 1, a, blas.View(a, 0, d, lo, hi), 0, blas.View(g, 0, K, lo, hi))
	}
	return nil
}

// stepXKeep runs stepX and keeps the previous codes when FISTA (not a
// descent method) stopped at a higher J.
func (s *jdlTrain) stepXKeep(ctx context.Context) error {
	old := s.cost().Total
	s.Xold.Reset()
	s.Xold.CloneFrom(s.X)
	if err := s.stepX(ctx); err != nil {
		return err
	}
	if s.cost().Total > old {
		s.X.Copy(&s.Xold)
	}
	return nil
}

// stepD runs JDL-D.
func (s *jdlTrain) stepD() {
	d, N := s.Y.Dims()
	K := s.part.Len()
	s.E.Reset()
	s.E.ReuseAs(d, K)
	s.F.Reset()
	s.F.ReuseAs(K, K)
	// E = YX̃ᵀ and F = X̃X̃ᵀ from the code blocks; the blocks F[a_c, a_c'],
	// c ≠ c', are zero.
	k, kk := s.k, s.k+K-s.part[s.sp.Blocks()]
	k0, k1 := s.part.Block(s.sp.Blocks())
	s.codeBlocks(func(a0, a1, r0, r1, s0, s1 int) {
		if a0 == k0 {
			return // the shared rows, over all samples below
		}
		gemmView(gblas.NoTrans, gblas.Trans, 1, s.Y, 0, d, s0, s1, s.X, 0, k, s0, s1, 0, &s.E, 0, d, a0, a1)
		gemmView(gblas.NoTrans, gblas.Trans, 1, s.X, 0, k, s0, s1, s.X, 0, k, s0, s1, 0, &s.F, a0, a1, a0, a1)
		gemmView(gblas.NoTrans, gblas.Trans, 1, s.X, 0, k, s0, s1, s.X, k, kk, s0, s1, 0, &s.F, a0, a1, k0, k1)
	})
	gemmView(gblas.NoTrans, gblas.Trans, 1, s.Y, 0, d, 0, N, s.X, k, kk, 0, N, 0, &s.E, 0, d, k0, k1)
	gemmView(gblas.NoTrans, gblas.Trans, 1, s.X, k, kk, 0, N, s.X, k, kk, 0, N, 0, &s.F, k0, k1, k0, k1)
	f := s.F.RawMatrix() // the lower triangle from the upper: ODL takes F as symmetric
	for i := 0; i < K; i++ {
		for j := i + 1; j < K; j++ {
			f.Data[j*f.Stride+i] = f.Data[i*f.Stride+j]
		}
	}
	s.du.Update(s.D, &s.E, &s.F, core.UpdateDictOptions{})
}

// gemmView sets dst[r0:r1, c0:c1] = α·op(A[ar0:ar1, ac0:ac1])·op(B[br0:br1, bc0:bc1]) + β·dst[r0:r1, c0:c1].
func gemmView(tA, tB gblas.Transpose, alpha float64, a *mat.Dense, ar0, ar1, ac0, ac1 int, b *mat.Dense, br0, br1, bc0, bc1 int, beta float64, dst *mat.Dense, r0, r1, c0, c1 int) {
	blas64.Gemm(tA, tB, alpha, blas.View(a.RawMatrix(), ar0, ar1, ac0, ac1), blas.View(b.RawMatrix(), br0, br1, bc0, bc1), beta, blas.View(dst.RawMatrix(), r0, r1, c0, c1))
}

// cost returns J with the terms "fidelity", "sparsity" and "fisher".
func (s *jdlTrain) cost() lrsdl.Cost {
	d, _ := s.Y.Dims()
	R := &s.R // Y − D̄X̃ from the code blocks
	R.CloneFrom(s.Y)
	s.codeBlocks(func(a0, a1, r0, r1, s0, s1 int) {
		gemmView(gblas.NoTrans, gblas.NoTrans, -1, s.D, 0, d, a0, a1, s.X, r0, r1, s0, s1, 1, R, 0, d, s0, s1)
	})
	X := s.full()
	terms := []lrsdl.Term{
		{Name: "fidelity", Value: core.Dot(R, R) / 2},
		{Name: "sparsity", Value: s.l1 * core.L1(X)},
		{Name: "fisher", Value: s.l2 / 2 * core.Fisher(X, s.sp)},
	}
	return lrsdl.NewCost(terms...)
}

// Cost returns J for (Y, labels), Y coded by the training X step.
func (m *JDL) Cost(Y mat.Matrix, labels []int) (lrsdl.Cost, error) {
	Y = normalized(Y, !m.res.NoNormalize)
	if err := dl.Trained(m.D); err != nil {
		return lrsdl.Cost{}, err
	}
	Ys, sp, err := dl.SortedSet(Y, labels, m.classes, m.D)
	if err != nil {
		return lrsdl.Cost{}, err
	}
	s := newJDLTrain(Ys, sp, m.part, m.D, m.res)
	if err := s.stepX(context.Background()); err != nil {
		return lrsdl.Cost{}, err
	}
	return s.cost(), nil
}

// Predict returns the label of each column of Y.
func (m *JDL) Predict(Y mat.Matrix) ([]int, error) { return m.PredictContext(context.Background(), Y) }

// predictRaw is PredictContext on samples as given.
func (m *JDL) predictRaw(ctx context.Context, Y mat.Matrix) ([]int, error) {
	if err := dl.Trained(m.D); err != nil {
		return nil, err
	}
	return sharedDictPredict(ctx, m.D, m.part, m.classes, Y, m.res.Lambda, m.star)
}

// stateBody returns the trained model: the options and the matrix "D" = D̄.
func (m *JDL) stateBody() (*lrsdl.State, error) {
	if err := dl.Trained(m.D); err != nil {
		return nil, err
	}
	return dl.NewState(m.Name(), m.res, m.classes, []string{"D"}, m.D)
}

// setStateBody restores a model returned by State.
func (m *JDL) setStateBody(s *lrsdl.State) error {
	var o JDLOptions
	cl, err := decodeState(s, m.Name(), &o, "D")
	if err != nil {
		return err
	}
	part := dl.BlockPartition(cl.Len(), o.K, o.K0)
	D := s.Matrices["D"]
	if _, K := D.Dims(); K != part.Len() {
		return fmt.Errorf("methods: %s state has %d atoms, want %d", m.Name(), K, part.Len())
	}
	o.Progress = m.Options.Progress
	m.Options, m.res, m.classes, m.D, m.part, m.info = o, o, cl, mat.DenseCopyOf(D), part, lrsdl.FitInfo{}
	return nil
}

// jdlPlan returns the floats JDL's Fit allocates at most for kb atoms
// (class and shared) on dr rows (dl.SpanRows):
//
//	trainData + 3·dr·N  the samples, and the residuals and products of the cost
//	4·dr·kb             the dictionary, its update and the D step's products
//	kb·N + 2·kb²        the codes and the Gram matrices of the X and D steps
func jdlPlan(info dl.Info, set dl.Settings, kb int) float64 {
	dr, N, K := dl.SpanRows(info, set), float64(info.N), float64(kb)
	return trainData(info, set) + 3*dr*N + 4*dr*K + K*N + 2*K*K
}
