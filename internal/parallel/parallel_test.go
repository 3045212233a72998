package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// counter is a Task that counts the runs of each chunk.
type counter struct{ runs []int }

func (c *counter) Do(chunk int) { c.runs[chunk]++ }

// TestFor checks that every chunk runs exactly once and is done when For
// returns, over many calls from several goroutines at once, so that
// batches are recycled while helpers woken for an earlier call may still
// be on their way (run it with -race).
func TestFor(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	var wg sync.WaitGroup
	for g := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 2000 {
				n := 1 + (i+g)%9
				c := &counter{runs: make([]int, n)}
				For(n, c, MinWork)
				for chunk, r := range c.runs {
					if r != 1 {
						t.Errorf("chunk %d of %d ran %d times", chunk, n, r)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
}

// slow is a Task whose chunks take longer than spin, and record that they
// finished.
type slow struct{ done []atomic.Bool }

func (s *slow) Do(chunk int) {
	time.Sleep(3 * spin)
	s.done[chunk].Store(true)
}

// TestForSlowChunks checks that For waits for chunks that outlast the
// caller's spin (it then sleeps until the last one signals), whether the
// helper was handed the batch on offer or woken.
func TestForSlowChunks(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	for i := range 20 {
		s := &slow{done: make([]atomic.Bool, 2+i%3)}
		For(len(s.done), s, MinWork)
		for c := range s.done {
			if !s.done[c].Load() {
				t.Fatalf("call %d: For returned before chunk %d of %d finished", i, c, len(s.done))
			}
		}
		if i%2 == 1 {
			time.Sleep(2 * spin) // the helper stops spinning and sleeps
		}
	}
}

// TestForAllocs checks that For does not allocate once warm.
func TestForAllocs(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	c := &counter{runs: make([]int, 8)}
	f := func() { For(8, c, MinWork) }
	f()
	if a := testing.AllocsPerRun(100, f); a > 0 {
		t.Errorf("%v allocations per For", a)
	}
}

// TestChunks checks Chunks's known answers and that its chunks cover a
// side exactly.
func TestChunks(t *testing.T) {
	for _, c := range []struct{ n, size, count int }{
		{0, 0, 0}, {1, 1, 1}, {63, 63, 1}, {64, 32, 2}, {100, 32, 4}, {130, 40, 4}, {425, 112, 4}, {1020, 256, 4}, {10000, 2504, 4},
	} {
		size, count := Chunks(c.n)
		if size != c.size || count != c.count {
			t.Errorf("Chunks(%d) = %d, %d; want %d, %d", c.n, size, count, c.size, c.count)
		}
		if c.n > 0 && ((count-1)*size >= c.n || count*size < c.n) {
			t.Errorf("Chunks(%d): %d chunks of %d do not cover it exactly", c.n, count, size)
		}
	}
}

// pair is a Task of two chunks whose first waits up to wait for the
// second to start, and records whether it did: whether a helper ran the
// second chunk while the caller ran the first.
type pair struct {
	wait    time.Duration
	started atomic.Bool
	met     bool
}

func (p *pair) Do(chunk int) {
	if chunk == 1 {
		p.started.Store(true)
		return
	}
	for start := time.Now(); time.Since(start) < p.wait; runtime.Gosched() {
		if p.started.Load() {
			p.met = true
			return
		}
	}
}

// TestForWakes checks that For wakes a sleeping helper for work of
// MinWork but not below it, where the caller runs every chunk itself.
func TestForWakes(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	For(2, &pair{}, MinWork) // start the helpers
	for _, c := range []struct {
		work int
		met  bool
		wait time.Duration
	}{{forMin, false, 20 * time.Millisecond}, {MinWork - 1, false, 20 * time.Millisecond}, {MinWork, true, time.Second}} {
		time.Sleep(100 * spin) // the helpers sleep
		p := &pair{wait: c.wait}
		For(2, p, c.work)
		if p.met != c.met {
			t.Errorf("work %d: a helper ran a chunk: %v, want %v", c.work, p.met, c.met)
		}
	}
}

// TestProcs checks that work within a job keeps every core while fewer
// jobs than cores run, and one once they fill the cores.
func TestProcs(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	if p := Procs(); p != 2 {
		t.Fatalf("no job: Procs() = %d, want 2", p)
	}
	Job(func() {
		if p := Procs(); p != 2 {
			t.Errorf("one job on two cores: Procs() = %d, want 2", p)
		}
		started, done := make(chan struct{}), make(chan struct{})
		go Job(func() { close(started); <-done })
		<-started
		if p := Procs(); p != 1 {
			t.Errorf("two jobs on two cores: Procs() = %d, want 1", p)
		}
		close(done)
	})
	for jobs.Load() != 0 {
		runtime.Gosched()
	}
	if p := Procs(); p != 2 {
		t.Errorf("after the jobs: Procs() = %d, want 2", p)
	}
}
