package core

import (
	"context"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl/internal/testutil"
)

// TestADMMDictWorkspaceReuse checks that a workspace left by problems of
// other shapes gives exactly the result of a fresh one.
func TestADMMDictWorkspaceReuse(t *testing.T) {
	opts := ADMMOptions{MaxIter: 8, Tol: -1, Update: UpdateDictOptions{MaxIter: 3, Tol: -1}}
	var w ADMMDictWorkspace
	for _, s := range []struct{ d, k int }{{30, 20}, {12, 7}, {40, 60}, {12, 7}} {
		_, E, F := svDictProblem(uint64(s.d+s.k), s.d, s.k, 2)
		D0 := testutil.RandUnitCols(rand.New(rand.NewPCG(uint64(s.k), 1)), s.d, s.k)
		want, got := mat.DenseCopyOf(D0), mat.DenseCopyOf(D0)
		if err := ADMMDict(context.Background(), want, E, F, SVTProx(0.5), opts); err != nil {
			t.Fatal(err)
		}
		if err := w.Update(context.Background(), got, E, F, SVTProx(0.5), opts); err != nil {
			t.Fatal(err)
		}
		if !mat.Equal(want, got) {
			t.Errorf("d=%d k=%d: reused workspace differs from a fresh one by %g", s.d, s.k, svRelDiff(want, got))
		}
	}
}

func TestADMMDictWorkspaceAllocs(t *testing.T) {
	_, E, F := svDictProblem(121, 30, 20, 2)
	D := testutil.RandUnitCols(rand.New(rand.NewPCG(122, 0)), 30, 20)
	id := func(z, v *mat.Dense, _ float64) { z.Copy(v) }
	opts := ADMMOptions{MaxIter: 5, Tol: -1, Update: UpdateDictOptions{MaxIter: 2, Tol: -1}}
	var w ADMMDictWorkspace
	ctx := context.Background()
	w.Update(ctx, D, E, F, id, opts)
	if n := testing.AllocsPerRun(5, func() { w.Update(ctx, D, E, F, id, opts) }); n != 0 {
		t.Errorf("ADMMDict with a warm workspace and an allocation-free prox allocates %v times", n)
	}
}
