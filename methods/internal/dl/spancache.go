package dl

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"sync"
	"unsafe"
	"weak"

	"gonum.org/v1/gonum/mat"
)

// DataKey identifies a data set: SHA-256 of its dimensions and entries.
type DataKey [sha256.Size]byte

// KeyOf returns the DataKey of Y.
func KeyOf(Y *mat.Dense) DataKey {
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
	var k DataKey
	h.Sum(k[:0])
	return k
}

// Span is ReduceSpan's result for one training set (Q nil when it was not
// reduced), and the projections QᵀY of the sets Project computed with it.
type Span struct {
	Q  *SpanBasis
	Yr *mat.Dense // read only: fits share it

	mu   sync.Mutex
	proj []projection // at most maxProjections, newest last
}

// spans maps training sets to their Span while a fit sharing it (running,
// or kept to be resumed) holds it: the d×N basis is the largest object of
// a fit, and its QR costs about as much as an outer iteration.
var spans struct {
	sync.Mutex
	m map[DataKey]weak.Pointer[Span]
}

// spanOf returns the Span of Ys by reduceDense; with share, from spans
// when a fit of the same data (of key k) holds it, and kept there.
func spanOf(ctx context.Context, Ys *mat.Dense, k DataKey, set Settings, share bool) (*Span, error) {
	if !share {
		Q, Yr, err := reduceDense(ctx, Ys, set)
		return &Span{Q: Q, Yr: Yr}, err
	}
	if set.NoSpan {
		return &Span{}, ctx.Err()
	}
	spans.Lock()
	if e := spans.m[k].Value(); e != nil {
		spans.Unlock()
		return e, ctx.Err()
	}
	spans.Unlock()
	Q, Yr, err := reduceDense(ctx, Ys, set)
	if err != nil {
		return nil, err
	}
	e := &Span{Q: Q, Yr: Yr}
	spans.Lock()
	defer spans.Unlock()
	if spans.m == nil {
		spans.m = map[DataKey]weak.Pointer[Span]{}
	}
	for key, p := range spans.m {
		if p.Value() == nil {
			delete(spans.m, key)
		}
	}
	spans.m[k] = weak.Make(e)
	return e, nil
}

// maxProjections is the number of projected sets a Span keeps: a
// cross-validation fold scores one validation set.
const maxProjections = 2

// projection is P = QᵀY of a set Y of key key.
type projection struct {
	key DataKey
	P   *mat.Dense
}

// Project returns P = QᵀY (r×n, r the rows of Yr) for the d×n matrix Y,
// computed once per Y (by key) and kept in e; P is read only. e.Q must not
// be nil.
func (e *Span) Project(ctx context.Context, Y *mat.Dense) (*mat.Dense, error) {
	k := KeyOf(Y)
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, p := range e.proj {
		if p.key == k {
			return p.P, nil
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	P := e.Q.Project(Y)
	if len(e.proj) == maxProjections {
		e.proj = e.proj[1:]
	}
	e.proj = append(e.proj, projection{key: k, P: P})
	return P, nil
}
