package fisher

import (
	"context"
	"slices"
	"testing"

	"github.com/lrsdl/lrsdl/methods/internal/dl"
	"github.com/lrsdl/lrsdl/methods/internal/toy"
	"gonum.org/v1/gonum/mat"
)

// TestFisherSharedSpan checks that fits of the same data share the span
// factors while a resumable fit holds them, that other data does not, and
// that a fit on shared factors is the fit on freshly computed ones.
func TestFisherSharedSpan(t *testing.T) {
	ctx := context.Background()
	Y, labels, _ := toy.Shared(3, 8, 60, 12)
	Y2, labels2, _ := toy.Shared(3, 8, 60, 13)
	p := lrsdlParams(4, 3, 0.01, 0.1)
	p.Iters, p.Seed = 3, 2
	mk := func(Y *mat.Dense, labels []int) *Model {
		m := &Model{}
		m.SetResumable(true)
		must(t, m.Fit(ctx, "LRSDL", Y, labels, func(dl.Info) (Params, error) { return p, nil }))
		return m
	}
	a, b := mk(Y, labels), mk(Y, labels)
	if a.rs.span == nil || a.rs.span.Q == nil || a.rs.span != b.rs.span {
		t.Fatal("two fits of the same data do not share the span factors")
	}
	c := mk(Y2, labels2)
	if c.rs.span == a.rs.span {
		t.Fatal("fits of other data share the span factors")
	}
	spans.Lock()
	spans.m = nil
	spans.Unlock()
	fresh := mk(Y, labels)
	if fresh.rs.span == b.rs.span {
		t.Fatal("span factors not recomputed after clearing the cache")
	}
	if !mat.Equal(b.Db, fresh.Db) || !mat.Equal(b.Mc, fresh.Mc) || !slices.Equal(b.M0, fresh.M0) {
		t.Errorf("the fit on shared factors differs from the fit on fresh ones")
	}
}
