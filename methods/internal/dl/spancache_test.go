package dl

import (
	"context"
	"errors"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl/methods/internal/toy"
)

// TestPrepareShare checks Prepare: the set in class order with its sizes,
// training on Yr = QᵀY when reduced; shared spans the same for the same
// data while held, other for other data, recomputed (to the same bits)
// after the cache is cleared and when not shared; none with NoSpan; and a
// refusal by check returned before the factorisation.
func TestPrepareShare(t *testing.T) {
	ctx := context.Background()
	Y, labels, _ := toy.Shared(3, 8, 60, 12)
	Y2, labels2, _ := toy.Shared(3, 8, 60, 13)
	prep := func(Y *mat.Dense, labels []int, set Settings, share bool) *Prepared {
		t.Helper()
		p, err := Prepare(ctx, Y, labels, set, share, nil)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	a := prep(Y, labels, Settings{}, true)
	Ys, g, err := TrainingSet(Y, labels)
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(a.Y, Ys) || a.Info != InfoOf(Ys, g) || a.Key != KeyOf(Ys) {
		t.Fatal("Prepare's set, sizes or key differ from TrainingSet's, InfoOf's and KeyOf's")
	}
	if a.Span.Q == nil || a.Train != a.Span.Yr {
		t.Fatal("60×24 data not reduced to its span")
	}
	if b := prep(Y, labels, Settings{}, true); b.Span != a.Span {
		t.Error("two preparations of the same data do not share the span")
	}
	if c := prep(Y2, labels2, Settings{}, true); c.Span == a.Span || c.Key == a.Key {
		t.Error("other data shares the span or the key")
	}
	own := prep(Y, labels, Settings{}, false)
	if own.Span == a.Span || own.Key != (DataKey{}) || !mat.Equal(own.Span.Yr, a.Span.Yr) {
		t.Error("an unshared preparation shares the span, has a key, or another Yr")
	}
	spans.Lock()
	spans.m = nil
	spans.Unlock()
	if f := prep(Y, labels, Settings{}, true); f.Span == a.Span || !mat.Equal(f.Span.Yr, a.Span.Yr) {
		t.Error("span not recomputed, or recomputed differently, after clearing the cache")
	}
	if n := prep(Y, labels, Settings{NoSpan: true}, true); n.Span.Q != nil || n.Train != n.Y {
		t.Error("NoSpan: the set is reduced")
	}
	refuse := errors.New("refused")
	var seen Info
	p, err := Prepare(ctx, Y, labels, Settings{}, false, func(p *Prepared) error {
		seen = p.Info
		if p.Span != nil {
			t.Error("check called after the factorisation")
		}
		return refuse
	})
	if p != nil || err != refuse || seen.N != 24 || seen.Classes != 3 {
		t.Errorf("refused by check: %v, %v, sizes %+v", p, err, seen)
	}
}

// TestSpanProject checks Span.Project against Yr = QᵀY of the factored set
// itself, and that it is computed once per set.
func TestSpanProject(t *testing.T) {
	Y, _, _ := toy.Shared(3, 6, 50, 1)
	Q, Yr, err := ReduceSpan(context.Background(), Y, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	e := &Span{Q: Q, Yr: Yr}
	P, err := e.Project(context.Background(), Y)
	if err != nil {
		t.Fatal(err)
	}
	if !mat.EqualApprox(P, Yr, 1e-12) {
		t.Errorf("QᵀY differs from Yr by %g", toy.MaxAbsDiff(P, Yr))
	}
	if P2, _ := e.Project(context.Background(), mat.DenseCopyOf(Y)); P2 != P {
		t.Error("the projection of the same set was computed twice")
	}
}
