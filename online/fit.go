package online

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl/core"
	"github.com/lrsdl/lrsdl/stream"
)

// Fit trains the model from scratch on Epochs passes over src, calling
// src.Reset before each. Every chunk is shuffled (seeded by Seed and the
// batch count) and cut into minibatches of Batch samples. A chunk with
// another dimension, with fewer or more labels than samples, or with a
// NaN or an infinity is an error naming it. On any error, cancellation included
// (ctx.Err() is returned), the model is left as it was before Fit.
func (m *Model) Fit(ctx context.Context, src stream.Source) error {
	if src == nil {
		return errors.New("online: nil source")
	}
	old := m.st
	m.st = state{}
	if err := m.fit(ctx, src); err != nil {
		m.st = old
		return err
	}
	return nil
}

func (m *Model) fit(ctx context.Context, src stream.Source) error {
	start := time.Now()
	var total int64
	if l, ok := src.(stream.Lener); ok {
		total = l.Len()
	}
	for e := 1; e <= m.p.epochs; e++ {
		if err := src.Reset(); err != nil {
			return fmt.Errorf("online: epoch %d: %w", e, err)
		}
		pr := progressor{m: m, epoch: e, start: start, epochStart: time.Now(), total: total}
		for {
			c, err := src.Next(ctx)
			if err == io.EOF {
				break
			}
			if err != nil {
				if ctxErr := ctx.Err(); ctxErr != nil {
					return ctxErr
				}
				return err
			}
			if err := stream.Check(c, m.st.d); err != nil {
				return err
			}
			if err := m.train(ctx, c, &pr); err != nil {
				return err
			}
		}
		if err := m.Flush(ctx); err != nil {
			return err
		}
	}
	if len(m.st.labels) < 2 {
		return fmt.Errorf("online: the source holds %d classes, need at least 2", len(m.st.labels))
	}
	return nil
}

// Flush adds every pending class (Pending) to the model, its atoms learned
// from the fewer than K samples it has and completed by random unit
// vectors (core.InitDict). Fit flushes at the end of every epoch, so that
// a class with fewer than K samples in the whole source is still learned.
// An error leaves the model unchanged.
func (m *Model) Flush(ctx context.Context) error {
	if len(m.st.pend) == 0 {
		return nil
	}
	old := m.st.clone()
	if err := m.initClasses(ctx, rand.New(rand.NewPCG(m.p.seed, uint64(2*m.st.t+1))), 1); err != nil {
		m.st = old
		return err
	}
	return nil
}

// PartialFit continues training from the current model with the columns
// of Y (one sample per column) and their labels, as one chunk of Fit. A
// label never seen adds its class once K of its samples have arrived
// (Pending lists those waiting): its atoms are learned from them. Bad
// input (another dimension than earlier samples, labels not one per
// sample, NaN or infinite values) is an error and leaves the model
// unchanged, as does cancellation (ctx.Err() is returned).
func (m *Model) PartialFit(ctx context.Context, Y mat.Matrix, labels []int) error {
	if Y == nil {
		return errors.New("online: PartialFit: nil samples")
	}
	c := stream.Chunk{Y: mat.DenseCopyOf(Y), Labels: labels, Name: "PartialFit input"}
	if err := stream.Check(c, m.st.d); err != nil {
		return err
	}
	old := m.st.clone()
	pr := progressor{m: m, start: time.Now(), epochStart: time.Now()}
	if err := m.train(ctx, c, &pr); err != nil {
		m.st = old
		return err
	}
	return nil
}

// progressor reports Progress after each minibatch.
type progressor struct {
	m                 *Model
	epoch             int
	start, epochStart time.Time
	total, seen       int64
}

func (p *progressor) batch(n int) {
	p.seen += int64(n)
	f := p.m.opts.Progress
	if f == nil {
		return
	}
	now := time.Now()
	pr := Progress{Epoch: p.epoch, Batches: p.m.st.t, Seen: p.m.st.seen, EpochSeen: p.seen, Elapsed: now.Sub(p.start)}
	if p.total > p.seen && p.seen > 0 {
		pr.ETA = time.Duration(float64(now.Sub(p.epochStart)) / float64(p.seen) * float64(p.total-p.seen))
	}
	f(pr)
}

// train shuffles the chunk and trains on its minibatches.
func (m *Model) train(ctx context.Context, c stream.Chunk, pr *progressor) error {
	if m.st.d == 0 {
		m.st.d, _ = c.Y.Dims()
	}
	_, n := c.Y.Dims()
	perm := rand.New(rand.NewPCG(m.p.seed, uint64(2*m.st.t))).Perm(n)
	for lo := 0; lo < n; lo += m.p.batch {
		idx := perm[lo:min(lo+m.p.batch, n)]
		if err := m.step(ctx, c.Y, c.Labels, idx); err != nil {
			if ctxErr := ctx.Err(); ctxErr != nil {
				return ctxErr
			}
			return fmt.Errorf("online: chunk %s: %w", c.Name, err)
		}
		pr.batch(len(idx))
	}
	return nil
}

// gather returns the columns idx of Y as a d×len(idx) matrix in dst.
func gather(dst *mat.Dense, Y *mat.Dense, idx []int) *mat.Dense {
	d, _ := Y.Dims()
	dst = reuse(dst, d, len(idx))
	yr, dr := Y.RawMatrix(), dst.RawMatrix()
	for i := 0; i < d; i++ {
		row, out := yr.Data[i*yr.Stride:], dr.Data[i*dr.Stride:]
		for j, k := range idx {
			out[j] = row[k]
		}
	}
	return dst
}

// step trains on the samples idx of Y (load, then update).
func (m *Model) step(ctx context.Context, Y *mat.Dense, labels []int, idx []int) error {
	n, err := m.load(ctx, Y, labels, idx)
	if err != nil || n == 0 {
		return err
	}
	return m.update(ctx)
}

// load buffers the samples idx of Y whose classes are untrained,
// initialises the classes that have K buffered samples (and D0 on the
// first batch), and gathers the samples of the classes trained before into
// the batch w.Yb, sorted by class (partition w.sp). It returns their number.
func (m *Model) load(ctx context.Context, Y *mat.Dense, labels []int, idx []int) (int, error) {
	s, w, p := &m.st, &m.w, &m.p
	d := s.d
	rng := rand.New(rand.NewPCG(p.seed, uint64(2*s.t+1)))
	if p.k0 > 0 && s.D0.IsEmpty() {
		D0, X0, err := core.LearnDict(ctx, gather(&w.Yb, Y, idx), p.k0, p.lambda1, rng, core.LearnDictOptions{Iter: 5})
		if err != nil {
			return 0, err
		}
		s.D0 = *D0
		s.A0.ReuseAs(p.k0, p.k0)
		s.B0.ReuseAs(d, p.k0)
		s.s0 = make([]float64, p.k0)
		_, n := X0.Dims()
		for i := range s.s0 {
			s.s0[i] = mat.Sum(X0.RowView(i))
		}
		s.n0 = float64(n)
	}
	w.was = slices.Grow(w.was[:0], len(idx))[:len(idx)]
	w.col = slices.Grow(w.col[:0], d)[:d]
	was, col := w.was, w.col
	for j, k := range idx {
		was[j] = s.classOf(labels[k]) >= 0
		if was[j] {
			continue
		}
		if s.pend == nil {
			s.pend = make(map[int][][]float64)
		}
		mat.Col(col, k, Y)
		s.pend[labels[k]] = append(s.pend[labels[k]], slices.Clone(col))
	}
	if err := m.initClasses(ctx, rng, p.k); err != nil {
		return 0, err
	}
	C := len(s.labels)
	sel, cls := w.sel[:0], w.cls[:0]
	for j, k := range idx {
		if was[j] {
			sel = append(sel, k)
			cls = append(cls, s.classOf(labels[k]))
		}
	}
	w.sel, w.cls = sel, cls
	if len(sel) == 0 {
		return 0, nil
	}
	w.order = slices.Grow(w.order[:0], len(sel))[:len(sel)]
	w.sorted = slices.Grow(w.sorted[:0], len(sel))[:len(sel)]
	order, sorted := w.order, w.sorted
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cls[a] - cls[b] })
	w.sp = slices.Grow(w.sp[:0], C+1)[:C+1]
	clear(w.sp)
	for i, o := range order {
		sorted[i] = sel[o]
		w.sp[cls[o]+1]++
	}
	for c := 0; c < C; c++ {
		w.sp[c+1] += w.sp[c]
	}
	gather(&w.Yb, Y, sorted)
	return len(sel), nil
}

// prepareX sets the running means and the products of D̄ that the X
// step uses, and returns its Lipschitz constant.
func (m *Model) prepareX() float64 {
	s, w := &m.st, &m.w
	K, k0, C := s.K(), s.k0(), len(s.labels)
	w.m = slices.Grow(w.m[:0], K)[:K]
	w.m0 = slices.Grow(w.m0[:0], k0)[:k0]
	s.means(reuse(&w.Mc, K, C), w.m, w.m0)
	return w.prepare(s, m.p.lambda2)
}

// update runs the X, D and D0 steps on the batch that load gathered.
func (m *Model) update(ctx context.Context) error {
	s, w, p := &m.st, &m.w, &m.p
	L := m.prepareX()
	if err := w.xStep(ctx, s, p, L); err != nil {
		return err
	}
	s.t++
	beta := p.beta(s.t)
	w.accumulate(s, beta)
	if err := w.dStep(ctx, s, p); err != nil {
		return err
	}
	if s.k0() > 0 {
		w.accumulate0(s, beta)
		if err := w.d0Step(ctx, s, p); err != nil {
			return err
		}
	}
	_, b := w.Yb.Dims()
	s.seen += int64(b)
	return nil
}

// initClasses learns the atoms of every pending class with at least
// minSamples buffered samples (in increasing order of label) by ODL on
// them, and adds the classes to the model.
func (m *Model) initClasses(ctx context.Context, rng *rand.Rand, minSamples int) error {
	s, p := &m.st, &m.p
	var ready []int
	for l, cols := range s.pend {
		if len(cols) >= minSamples {
			ready = append(ready, l)
		}
	}
	if len(ready) == 0 {
		return nil
	}
	slices.Sort(ready)
	Ds := make([]*mat.Dense, len(ready))
	sums := make([][]float64, len(ready))
	counts := make([]float64, len(ready))
	for i, l := range ready {
		cols := s.pend[l]
		Yc := mat.NewDense(s.d, len(cols), nil)
		for j, col := range cols {
			Yc.SetCol(j, col)
		}
		D, X, err := core.LearnDict(ctx, Yc, p.k, p.lambda1, rng, core.LearnDictOptions{Iter: 5})
		if err != nil {
			return fmt.Errorf("initialising class %d: %w", l, err)
		}
		Ds[i], counts[i] = D, float64(len(cols))
		sums[i] = make([]float64, p.k)
		for a := range sums[i] {
			sums[i][a] = mat.Sum(X.RowView(a))
		}
	}
	for _, l := range ready {
		delete(s.pend, l)
	}
	s.addClasses(ready, Ds, sums, counts, p.k)
	return nil
}
