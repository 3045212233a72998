package fisher

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"slices"
	"sync"
	"time"
	"unsafe"
	"weak"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/core"
	"github.com/lrsdl/lrsdl/methods/internal/dl"
)

// fitState is what Resume needs to continue the last Fit: the training
// state in the coordinates it trains in, without its workspaces, a
// fingerprint of the training set and its span factors (shared by every
// fit of the same data, see sharedSpan).
type fitState struct {
	t      *train // Y and the workspaces dropped (compact)
	info   lrsdl.FitInfo
	d      int
	labels []int
	key    dataKey    // of the class-ordered training set
	span   *spanEntry // held so that fits of the same data share it
}

// dataKey identifies a training set: SHA-256 of its dimensions and entries.
type dataKey [sha256.Size]byte

// keyOf returns the dataKey of Y.
func keyOf(Y *mat.Dense) dataKey {
	h := sha256.New()
	r, c := Y.Dims()
	var dims [16]byte
	binary.LittleEndian.PutUint64(dims[:8], uint64(r))
	binary.LittleEndian.PutUint64(dims[8:], uint64(c))
	h.Write(dims[:])
	for i := 0; i < r; i++ {
		row := Y.RawRowView(i)[:c]
		h.Write(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(row))), 8*len(row)))
	}
	var k dataKey
	h.Sum(k[:0])
	return k
}

// spanEntry is dl.ReduceSpan's result for one training set, and the
// projections QᵀY of the sets ScoreEach scored with it.
type spanEntry struct {
	Q  *dl.SpanBasis
	Yr *mat.Dense // read only: fits share it

	mu   sync.Mutex
	proj []projection // at most maxProjections, newest last
}

// spans maps training sets to their spanEntry while a resumable fit
// (running, or kept in its fitState) holds it, so that the fits
// of one cross-validation fold, which differ only in their options, factor
// the fold once: the d×N basis is the largest object of a fit, and its QR
// costs about as much as an outer iteration.
var spans struct {
	sync.Mutex
	m map[dataKey]weak.Pointer[spanEntry]
}

// sharedSpan returns dl.ReduceSpan(ctx, Ys, set) for Ys of key k, from spans when
// a fit of the same data holds it (the factorisation is deterministic, so
// the entry is the one dl.ReduceSpan would return).
func sharedSpan(ctx context.Context, Ys *mat.Dense, k dataKey, set dl.Settings) (*spanEntry, error) {
	if set.NoSpan {
		return &spanEntry{}, ctx.Err()
	}
	spans.Lock()
	if e := spans.m[k].Value(); e != nil {
		spans.Unlock()
		return e, ctx.Err()
	}
	spans.Unlock()
	Q, Yr, err := dl.ReduceSpan(ctx, Ys, set)
	if err != nil {
		return nil, err
	}
	e := &spanEntry{Q: Q, Yr: Yr}
	spans.Lock()
	defer spans.Unlock()
	if spans.m == nil {
		spans.m = map[dataKey]weak.Pointer[spanEntry]{}
	}
	for key, p := range spans.m {
		if p.Value() == nil {
			delete(spans.m, key)
		}
	}
	spans.m[k] = weak.Make(e)
	return e, nil
}

// compact returns the part of t that carries from one outer iteration to
// the next: the iterates, the cached cost and the warm starts of the power
// iterations. Everything else is a workspace, or a cache keyed on D̄ and Y
// (gramCache) that the next iteration recomputes to the same values.
func (t *train) compact() *train {
	return &train{p: t.p, set: t.set, sp: t.sp, ap: t.ap, Db: t.Db, Xb: t.Xb, K: t.K, k0: t.k0,
		lip: t.lip.warmStarts(), x0: x0step{lip: t.x0.lip}, cur: t.cur, curOK: t.curOK}
}

// outerStep is one outer iteration of Algorithm 2: X̄, D, then D0. It
// returns J̄ at the new point.
func (t *train) outerStep(ctx context.Context) (lrsdl.Cost, error) {
	if t.overlaps() {
		return t.outerStepOverlap(ctx)
	}
	if err := t.stepX(ctx); err != nil {
		return lrsdl.Cost{}, err
	}
	if err := t.stepD(ctx); err != nil {
		return lrsdl.Cost{}, err
	}
	if err := t.stepD0(ctx); err != nil {
		return lrsdl.Cost{}, err
	}
	return t.current(), nil
}

// finish sets the model from the training state t: D̄ = Q·D̄_r (or D̄_r
// when Q is nil) and the code means; with SetScoreOnly, it leaves the
// model suspended.
func (f *Model) finish(cl *core.Classes, d int, t *train, Q *dl.SpanBasis) {
	f.Classes = cl
	f.Dim = d
	f.Part = t.ap
	if f.score {
		f.Suspend()
		return
	}
	f.Db = t.Db
	if Q != nil {
		f.Db = dl.Expand(Q, t.Db)
	}
	f.Mc, f.M0 = t.means()
}

// keepState stores what Resume needs when f.keep is set: t compacted, the
// data's key and its span entry e. The state's D̄ is a copy when the
// model's D̄ is the training iterate itself.
func (f *Model) keepState(t *train, d int, labels []int, k dataKey, e *spanEntry) {
	f.rs = nil
	if !f.keep {
		return
	}
	c := t.compact()
	if c.Db == f.Db {
		c.Db = mat.DenseCopyOf(t.Db)
	}
	f.rs = &fitState{t: c, info: f.Info, d: d, labels: slices.Clone(labels), key: k, span: e}
}

// Resume continues the last Fit, which SetResumable(true) preceded, on
// the same training set up to iters outer iterations in total; name is
// the method's, for errors, and progress is called after each iteration.
func (f *Model) Resume(ctx context.Context, name string, Y mat.Matrix, labels []int, iters int, progress lrsdl.ProgressFunc) error {
	rs := f.rs
	if rs == nil {
		return fmt.Errorf("methods: %s: nothing to Resume; Fit after SetResumable(true) first", name)
	}
	if iters < rs.info.Iters {
		return fmt.Errorf("methods: %s: cannot Resume to %d outer iterations, %d already run", name, iters, rs.info.Iters)
	}
	if (f.Db != nil || f.score) && (iters == rs.info.Iters || rs.info.Stop == lrsdl.StopConverged) {
		rs.t.p.Iters = iters
		return nil // nothing to run
	}
	Ys, g, err := dl.TrainingSet(Y, labels)
	if err != nil {
		return err
	}
	k := keyOf(Ys)
	if !slices.Equal(labels, rs.labels) || k != rs.key {
		return fmt.Errorf("methods: %s: Resume needs the training set of the last Fit", name)
	}
	e := rs.span
	if e == nil || f.Set.NoSpan != (e.Q == nil && e.Yr == nil) { // the settings changed
		var err error
		if e, err = sharedSpan(ctx, Ys, k, f.Set); err != nil {
			return err
		}
	}
	Q := e.Q
	t := rs.t
	t.Y = Ys
	if Q != nil {
		t.Y = e.Yr
	}
	t.p.Iters, t.p.Progress = iters, progress
	f.rs, f.Db = nil, nil // until it succeeds
	info := rs.info
	start := time.Now().Add(-info.Elapsed)
	if info.Stop != lrsdl.StopConverged {
		info, err = dl.ContinueOuter(ctx, dl.Loop{Iters: iters, Tol: t.p.Tol, Progress: progress, Start: start}, info,
			func(int, bool) (lrsdl.Cost, error) { return t.outerStep(ctx) })
	}
	f.Info = info
	if err != nil {
		return err
	}
	f.finish(g.Classes, rs.d, t, Q)
	f.Info.Elapsed = time.Since(start)
	f.keepState(t, rs.d, labels, k, e)
	return nil
}

// Suspend drops the trained model (D̄ and the means), keeping what Resume
// needs.
func (f *Model) Suspend() {
	f.Db, f.Mc, f.M0 = nil, nil, nil
}

// SetResumable sets whether Fit keeps the state Resume continues from;
// false drops it (and SetScoreOnly).
func (f *Model) SetResumable(on bool) {
	f.keep = on
	if !on {
		f.rs = nil
		f.score = false
	}
}
