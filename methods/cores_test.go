package methods

import (
	"context"
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/blas"
	"github.com/lrsdl/lrsdl/core"
	"github.com/lrsdl/lrsdl/methods/internal/dl"
)

// TestConformanceCores checks that every method trains the same model,
// bit for bit, on one core with one BLAS thread and on two with two, with
// blas.GemmThreadsMin lowered so that many of its level-3 calls are split
// between the cores (threaded OpenBLAS would round them differently).
func TestConformanceCores(t *testing.T) {
	if testing.Short() {
		t.Skip("trains every method twice")
	}
	defer blas.SetOpenBLASThreads(blas.SetOpenBLASThreads(0))
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	defer func(v int) { blas.GemmThreadsMin = v }(blas.GemmThreadsMin)
	blas.GemmThreadsMin = 1 << 16
	const d, C, n = 160, 3, 50
	rng := rand.New(rand.NewPCG(8, 9))
	Y := mat.NewDense(d, C*n, nil)
	labels := make([]int, C*n)
	for j := range labels {
		labels[j] = j % C
		for i := 0; i < d; i++ {
			v := 0.3 * rng.NormFloat64()
			if i%C == labels[j] {
				v++
			}
			Y.Set(i, j, v)
		}
	}
	forEachMethod(t, func(t *testing.T, name string) {
		var states [2]*lrsdl.State
		for i, procs := range []int{1, 2} {
			runtime.GOMAXPROCS(procs)
			blas.SetOpenBLASThreads(procs)
			m := newConf(t, name)
			if hasParam(m, "k") {
				if err := m.SetParam("k", "30"); err != nil {
					t.Fatal(err)
				}
			}
			if err := m.Fit(context.Background(), Y, labels); err != nil {
				t.Fatal(err)
			}
			var err error
			if states[i], err = m.State(); err != nil {
				t.Fatal(err)
			}
		}
		for _, nm := range states[0].Names {
			if !mat.Equal(states[0].Matrices[nm], states[1].Matrices[nm]) {
				t.Errorf("one core and two trained different %q", nm)
			}
		}
	})
}

// TestLearnDictsSuccessive checks that dl.LearnDicts, which draws every
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
	bs := []dl.DictBlock{{Y: Y.Slice(0, 120, 0, 100), K: 8}, {Y: Y.Slice(0, 120, 100, 300), K: 12}, {Y: Y, K: 5}}
	work := 0
	for _, b := range bs {
		d, n := b.Y.Dims()
		work += dl.LassoWork(d, b.K, n)
	}
	if dl.ClassProcs(work) < 2 {
		t.Fatalf("blocks of %d multiply-adds run on one goroutine; enlarge them", work)
	}
	opts := core.LearnDictOptions{Iter: 3}
	if err := dl.LearnDicts(context.Background(), bs, 0.05, rand.New(rand.NewPCG(5, 6)), opts); err != nil {
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
