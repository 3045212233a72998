package core

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"runtime/pprof"
	"testing"
	"time"

	"github.com/lrsdl/lrsdl/internal/testutil"
)

// TestLearnDictCancelLatency measures, with LRSDL_CANCEL_LATENCY=1, how
// long LearnDictFrom takes to return after a cancellation at COIL-100
// sizes (d = 1024, N = 7200, k = 7000, the initialisation of LRSDL's
// shared dictionary with k0 = 7000), cancelling at several moments. It
// logs the latencies (go test -v) and asserts only the error.
func TestLearnDictCancelLatency(t *testing.T) {
	if os.Getenv("LRSDL_CANCEL_LATENCY") == "" {
		t.Skip("set LRSDL_CANCEL_LATENCY=1 to measure (needs about 3 GB)")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	const d, n, k = 1024, 7200, 7000
	Y := testutil.RandUnitCols(rng, d, n)
	D0 := testutil.RandUnitCols(rng, d, k)
	for _, after := range []time.Duration{500 * time.Millisecond, 2 * time.Second, 4 * time.Second, 7 * time.Second, 10 * time.Second, 14 * time.Second, 19 * time.Second, 25 * time.Second} {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			_, err := LearnDictFrom(ctx, Y, D0, 0.01, LearnDictOptions{})
			done <- err
		}()
		time.Sleep(after)
		start := time.Now()
		cancel()
		var err error
		select {
		case err = <-done:
		case <-time.After(300 * time.Millisecond):
			for err == nil {
				if os.Getenv("LRSDL_CANCEL_STACKS") != "" {
					pprof.Lookup("goroutine").WriteTo(os.Stderr, 1)
				}
				select {
				case err = <-done:
				case <-time.After(time.Second):
				}
			}
		}
		t.Logf("cancelled after %v: returned %v later (%v)", after, time.Since(start), err)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled after %v: %v", after, err)
		}
	}
}
