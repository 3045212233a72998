//go:build openblas && cgo && unix

package lrsdl

import (
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"gonum.org/v1/gonum/blas"

	"github.com/lrsdl/lrsdl/internal/cputime"
)

// TestThreadsSleep checks that OpenBLAS runs with threadTimeout, unless the
// environment sets OPENBLAS_THREAD_TIMEOUT, and that its threads no longer
// spin a few milliseconds after a threaded call (with OpenBLAS's default
// they spin for about 0.1 s), and that threaded calls still give the same
// bits each time.
func TestThreadsSleep(t *testing.T) {
	policy.once.Do(setup)
	want := threadTimeout
	if v, set := os.LookupEnv("OPENBLAS_THREAD_TIMEOUT"); set {
		want, _ = strconv.Atoi(v)
	}
	got := spinTimeout()
	if got < 0 {
		t.Skip("OpenBLAS without a thread server")
	}
	if got != want {
		t.Errorf("OpenBLAS thread timeout %d, want %d", got, want)
	}
	defer SetOpenBLASThreads(SetOpenBLASThreads(2))
	const n = 330
	defer func(v int) { GemmThreadsMin = v }(GemmThreadsMin)
	GemmThreadsMin = n * n * n
	rnd := rand.New(rand.NewPCG(7, 8))
	a := make([]float64, n*n)
	for i := range a {
		a[i] = 2*rnd.Float64() - 1
	}
	var first []float64
	for call := 0; call < 2; call++ {
		before := policy.threaded.Load()
		got := make([]float64, n*n)
		Level3{}.Dgemm(blas.NoTrans, blas.Trans, n, n, n, 1, a, n, a, n, 0, got, n)
		if c := policy.threaded.Load() - before; c != 1 {
			t.Fatalf("call %d: %d threaded calls, want 1", call, c)
		}
		if first == nil {
			first = got
		} else if !slices.Equal(got, first) {
			t.Error("two threaded calls of the same product round differently")
		}
		if want != threadTimeout {
			continue
		}
		time.Sleep(20 * time.Millisecond)
		c0 := cputime.Process()
		time.Sleep(60 * time.Millisecond)
		if used := cputime.Process() - c0; used > 20*time.Millisecond {
			t.Errorf("call %d: the process used %v of CPU in 60 ms of sleep from 20 ms after a threaded call: OpenBLAS's threads still spin", call, used)
		}
	}
}
