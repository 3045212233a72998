package fisher

import (
	"context"
	"testing"

	"github.com/lrsdl/lrsdl/methods/internal/dl"
	"github.com/lrsdl/lrsdl/methods/internal/toy"
	"gonum.org/v1/gonum/mat"
)

// TestSpanProject checks spanEntry.project against Yr = QᵀY of the
// factored set itself, and that it is computed once per set.
func TestSpanProject(t *testing.T) {
	Y, _, _ := toy.Shared(3, 6, 50, 1)
	Q, Yr, err := dl.ReduceSpan(context.Background(), Y, dl.Settings{})
	must(t, err)
	e := &spanEntry{Q: Q, Yr: Yr}
	P, err := e.project(context.Background(), Y)
	must(t, err)
	if !mat.EqualApprox(P, Yr, 1e-12) {
		t.Errorf("QᵀY differs from Yr by %g", toy.MaxAbsDiff(P, Yr))
	}
	if P2, _ := e.project(context.Background(), mat.DenseCopyOf(Y)); P2 != P {
		t.Error("the projection of the same set was computed twice")
	}
}
