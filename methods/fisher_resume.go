package methods

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

// spanEntry is reduceSpan's result for one training set, and the
// projections QᵀY of the sets ScoreEach scored with it.
type spanEntry struct {
	Q  *spanBasis
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

// sharedSpan returns reduceSpan(ctx, Ys) for Ys of key k, from spans when
// a fit of the same data holds it (the factorisation is deterministic, so
// the entry is the one reduceSpan would return).
func sharedSpan(ctx context.Context, Ys *mat.Dense, k dataKey) (*spanEntry, error) {
	if spanOff {
		return &spanEntry{}, ctx.Err()
	}
	spans.Lock()
	if e := spans.m[k].Value(); e != nil {
		spans.Unlock()
		return e, ctx.Err()
	}
	spans.Unlock()
	Q, Yr, err := reduceSpan(ctx, Ys)
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
	return &train{p: t.p, sp: t.sp, ap: t.ap, Db: t.Db, Xb: t.Xb, K: t.K, k0: t.k0,
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
func (f *fisherDL) finish(cl *core.Classes, d int, t *train, Q *spanBasis) {
	f.classes = cl
	f.d = d
	f.part = t.ap
	if f.score {
		f.suspend()
		return
	}
	f.Db = t.Db
	if Q != nil {
		f.Db = expand(Q, t.Db)
	}
	f.mc, f.m0 = t.means()
}

// keepState stores what resume needs when f.keep is set: t compacted, the
// data's key and its span entry e. The state's D̄ is a copy when the
// model's D̄ is the training iterate itself.
func (f *fisherDL) keepState(t *train, d int, labels []int, k dataKey, e *spanEntry) {
	f.rs = nil
	if !f.keep {
		return
	}
	c := t.compact()
	if c.Db == f.Db {
		c.Db = mat.DenseCopyOf(t.Db)
	}
	f.rs = &fitState{t: c, info: f.info, d: d, labels: slices.Clone(labels), key: k, span: e}
}

// resume continues the Fit that f.rs records, on the same training set,
// up to iters outer iterations in total (see LRSDL.Resume).
func (f *fisherDL) resume(ctx context.Context, name string, Y mat.Matrix, labels []int, iters int, progress lrsdl.ProgressFunc) error {
	rs := f.rs
	if rs == nil {
		return fmt.Errorf("methods: %s: nothing to resume; Fit after SetResumable(true) first", name)
	}
	if iters < rs.info.Iters {
		return fmt.Errorf("methods: %s: cannot resume to %d outer iterations, %d already run", name, iters, rs.info.Iters)
	}
	if (f.Db != nil || f.score) && (iters == rs.info.Iters || rs.info.Stop == lrsdl.StopConverged) {
		rs.t.p.iters = iters
		return nil // nothing to run
	}
	Ys, g, err := trainingSet(Y, labels)
	if err != nil {
		return err
	}
	k := keyOf(Ys)
	if !slices.Equal(labels, rs.labels) || k != rs.key {
		return fmt.Errorf("methods: %s: Resume needs the training set of the last Fit", name)
	}
	e := rs.span
	if e == nil || spanOff != (e.Q == nil && e.Yr == nil) { // a test toggled spanOff
		var err error
		if e, err = sharedSpan(ctx, Ys, k); err != nil {
			return err
		}
	}
	Q := e.Q
	t := rs.t
	t.Y = Ys
	if Q != nil {
		t.Y = e.Yr
	}
	t.p.iters, t.p.progress = iters, progress
	f.rs, f.Db = nil, nil // until it succeeds
	info := rs.info
	start := time.Now().Add(-info.Elapsed)
	if info.Stop != lrsdl.StopConverged {
		info, err = continueOuter(ctx, loop{iters: iters, tol: t.p.tol, progress: progress, start: start}, info,
			func(int, bool) (lrsdl.Cost, error) { return t.outerStep(ctx) })
	}
	f.info = info
	if err != nil {
		return err
	}
	f.finish(g.Classes, rs.d, t, Q)
	f.info.Elapsed = time.Since(start)
	f.keepState(t, rs.d, labels, k, e)
	return nil
}

// suspend drops the trained model (D̄ and the means), keeping what Resume
// needs.
func (f *fisherDL) suspend() {
	f.Db, f.mc, f.m0 = nil, nil, nil
}

// SetResumable sets whether Fit keeps the state Resume continues from: the
// iterates D̄ and X̄ in the coordinates of training (N×K̄ and K̄×N when
// d > 1.2N) and the warm starts of the power iterations.
func (m *LRSDL) SetResumable(on bool) { m.dl.setResumable(on) }

// Resume continues the last Fit, which SetResumable(true) preceded, on the
// same training set (Y, labels) up to iters outer iterations in total: the
// model is the one Fit with Options.Iters = iters gives, and FitInfo
// counts every iteration since Fit. A run that stopped on its tolerance
// stays stopped. It uses the training options of that Fit and sets
// Options.Iters to iters. After an error the model is untrained.
func (m *LRSDL) Resume(ctx context.Context, Y mat.Matrix, labels []int, iters int) error {
	err := m.dl.resume(ctx, m.Name(), Y, labels, iters, m.Options.Progress)
	if err == nil {
		m.Options.Iters = iters
	}
	return err
}

// Suspend frees the trained dictionaries (Predict then returns
// ErrNotTrained) but keeps the state of SetResumable; Resume restores them.
func (m *LRSDL) Suspend() { m.dl.suspend() }

// SetResumable is LRSDL.SetResumable.
func (m *FDDL) SetResumable(on bool) { m.dl.setResumable(on) }

// Resume is LRSDL.Resume.
func (m *FDDL) Resume(ctx context.Context, Y mat.Matrix, labels []int, iters int) error {
	err := m.dl.resume(ctx, m.Name(), Y, labels, iters, m.Options.Progress)
	if err == nil {
		m.Options.Iters = iters
	}
	return err
}

// Suspend is LRSDL.Suspend.
func (m *FDDL) Suspend() { m.dl.suspend() }

// SetResumable is LRSDL.SetResumable.
func (m *D2L2R2) SetResumable(on bool) { m.dl.setResumable(on) }

// Resume is LRSDL.Resume.
func (m *D2L2R2) Resume(ctx context.Context, Y mat.Matrix, labels []int, iters int) error {
	err := m.dl.resume(ctx, m.Name(), Y, labels, iters, m.Options.Progress)
	if err == nil {
		m.Options.Iters = iters
	}
	return err
}

// Suspend is LRSDL.Suspend.
func (m *D2L2R2) Suspend() { m.dl.suspend() }

func (f *fisherDL) setResumable(on bool) {
	f.keep = on
	if !on {
		f.rs = nil
		f.score = false
	}
}
