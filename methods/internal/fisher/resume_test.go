package fisher

import (
	"context"
	"slices"
	"testing"

	"github.com/lrsdl/lrsdl/methods/internal/dl"
	"github.com/lrsdl/lrsdl/methods/internal/toy"
	"gonum.org/v1/gonum/mat"
)

// TestFisherSharedSpan checks that resumable fits of the same data share
// the span factors (dl.Prepare), that other data does not, and that a fit
// on shared factors is the fit of a model that is not resumable, which
// factors the data itself.
func TestFisherSharedSpan(t *testing.T) {
	ctx := context.Background()
	Y, labels, _ := toy.Shared(3, 8, 60, 12)
	Y2, labels2, _ := toy.Shared(3, 8, 60, 13)
	p := lrsdlParams(4, 3, 0.01, 0.1)
	p.Iters, p.Seed = 3, 2
	mk := func(Y *mat.Dense, labels []int, keep bool) *Model {
		m := &Model{}
		m.SetResumable(keep)
		must(t, m.Fit(ctx, "LRSDL", Y, labels, func(dl.Info) (Params, error) { return p, nil }))
		return m
	}
	a, b := mk(Y, labels, true), mk(Y, labels, true)
	if a.rs.span == nil || a.rs.span.Q == nil || a.rs.span != b.rs.span {
		t.Fatal("two fits of the same data do not share the span factors")
	}
	c := mk(Y2, labels2, true)
	if c.rs.span == a.rs.span {
		t.Fatal("fits of other data share the span factors")
	}
	fresh := mk(Y, labels, false)
	if !mat.Equal(b.Db, fresh.Db) || !mat.Equal(b.Mc, fresh.Mc) || !slices.Equal(b.M0, fresh.M0) {
		t.Errorf("the fit on shared factors differs from the fit on fresh ones")
	}
}
