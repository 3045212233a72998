package dl

import (
	"context"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/lrsdl/lrsdl/core"
	"gonum.org/v1/gonum/mat"
)

// TestLearnDictsSuccessive checks that LearnDicts, which draws every
// block's starting atoms first and then learns the blocks concurrently,
// gives the dictionaries and codes of successive core.LearnDict calls
// on one source, on two cores.
func TestLearnDictsSuccessive(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	rng := rand.New(rand.NewPCG(3, 4))
	Y := mat.NewDense(120, 300, nil)
	for i := range Y.RawMatrix().Data {
		Y.RawMatrix().Data[i] = rng.NormFloat64()
	}
	bs := []DictBlock{{Y: Y.Slice(0, 120, 0, 100), K: 8}, {Y: Y.Slice(0, 120, 100, 300), K: 12}, {Y: Y, K: 5}}
	work := 0
	for _, b := range bs {
		d, n := b.Y.Dims()
		work += LassoWork(d, b.K, n)
	}
	if ClassProcs(work) < 2 {
		t.Fatalf("blocks of %d multiply-adds run on one goroutine; enlarge them", work)
	}
	opts := core.LearnDictOptions{Iter: 3}
	if err := LearnDicts(context.Background(), bs, 0.05, rand.New(rand.NewPCG(5, 6)), opts); err != nil {
		t.Fatal(err)
	}
	src := rand.New(rand.NewPCG(5, 6))
	for i, b := range bs {
		D, X, err := core.LearnDict(context.Background(), b.Y, b.K, 0.05, src, opts)
		if err != nil {
			t.Fatal(err)
		}
		if !mat.Equal(D, b.D) || !mat.Equal(X, b.X) {
			t.Errorf("block %d differs from successive LearnDict calls", i)
		}
	}
}
