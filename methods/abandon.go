package methods

import "context"

// abandonable runs f, a long step that cannot check ctx itself (a
// factorisation), on its own goroutine and returns its error, or ctx.Err()
// as soon as ctx is cancelled; an abandoned f then finishes on its own
// (what it writes must not be used again) and a panic of it is dropped.
func abandonable(ctx context.Context, f func() error) error {
	type result struct {
		err error
		p   any
	}
	done := make(chan result, 1)
	go func() {
		var r result
		defer func() { r.p = recover(); done <- r }()
		r.err = f()
	}()
	select {
	case r := <-done:
		if r.p != nil {
			panic(r.p)
		}
		return r.err
	case <-ctx.Done():
		return ctx.Err()
	}
}
