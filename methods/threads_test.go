package methods

import (
	"context"
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/blas"
)

// TestConformanceCores checks that every method trains the same model,
// bit for bit, on one core with one BLAS thread and on two with two (the
// split of calls from blas.GemmThreadsMin on: blas's TestLevel3Split).
func TestConformanceCores(t *testing.T) {
	if testing.Short() {
		t.Skip("trains every method twice")
	}
	defer blas.SetOpenBLASThreads(blas.SetOpenBLASThreads(0))
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
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
