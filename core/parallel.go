package core

import (
	"sync"
	"sync/atomic"
)

// ForEach runs f(w, i) for every i in [0, n) on up to procs goroutines,
// the calling one among them; w in [0, procs) names the goroutine, so that
// f can use a workspace of its own. Which goroutine runs which i varies,
// so f(w, i) must compute the same whatever w. It returns the error of the
// smallest i that failed.
func ForEach(n, procs int, f func(w, i int) error) error {
	procs = max(min(procs, n), 1)
	errs := make([]error, n)
	var next atomic.Int64
	run := func(w int) {
		for {
			i := int(next.Add(1) - 1)
			if i >= n {
				return
			}
			errs[i] = f(w, i)
		}
	}
	var wg sync.WaitGroup
	for w := 1; w < procs; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			run(w)
		}()
	}
	run(0)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
