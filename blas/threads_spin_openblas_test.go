//go:build openblas && cgo && unix

package blas

import (
	"math/rand/v2"
	"testing"
	"time"

	gblas "gonum.org/v1/gonum/blas"

	"github.com/lrsdl/lrsdl/internal/cputime"
)

// TestThreadsSleep checks that nothing spins on the other cores a few
// milliseconds after a large level-3 call: threaded, OpenBLAS's threads
// would spin for a while (its OPENBLAS_THREAD_TIMEOUT).
func TestThreadsSleep(t *testing.T) {
	defer SetOpenBLASThreads(SetOpenBLASThreads(2))
	const n = 330
	rnd := rand.New(rand.NewPCG(7, 8))
	a := make([]float64, n*n)
	for i := range a {
		a[i] = 2*rnd.Float64() - 1
	}
	got := make([]float64, n*n)
	for call := 0; call < 2; call++ {
		Level3{from: n * n * n}.Dgemm(gblas.NoTrans, gblas.Trans, n, n, n, 1, a, n, a, n, 0, got, n)
		time.Sleep(20 * time.Millisecond)
		c0 := cputime.Process()
		time.Sleep(60 * time.Millisecond)
		if used := cputime.Process() - c0; used > 20*time.Millisecond {
			t.Errorf("call %d: the process used %v of CPU in 60 ms of sleep from 20 ms after a large call", call, used)
		}
	}
}
