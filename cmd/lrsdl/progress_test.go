package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/lrsdl/lrsdl"
)

func TestProgressBar(t *testing.T) {
	var b bytes.Buffer
	e := &env{stderr: &b, tty: true}
	p := newProgress(e, false, "LRSDL", 10)
	p.iter(lrsdl.Progress{Iter: 1, Cost: lrsdl.Cost{Total: 3}})
	if b.Len() != 0 {
		t.Errorf("bar drawn within the first second: %q", b.String())
	}
	p.start = time.Now().Add(-2 * time.Second)
	p.iter(lrsdl.Progress{Iter: 5, Cost: lrsdl.Cost{Total: 2}})
	if s := b.String(); !strings.HasPrefix(s, "\rLRSDL [===============               ] 5/10 cost 2 ") {
		t.Errorf("bar %q", s)
	}
	p.done()
	if !strings.HasSuffix(b.String(), "\n") {
		t.Error("done does not end the line")
	}
	// Not a terminal: no bar; verbose: one line per iteration with the terms.
	b.Reset()
	e.tty = false
	p = newProgress(e, false, "X", 0)
	p.start = time.Now().Add(-2 * time.Second)
	p.iter(lrsdl.Progress{Iter: 1})
	if b.Len() != 0 {
		t.Errorf("bar drawn off a terminal: %q", b.String())
	}
	p = newProgress(e, true, "X", 0)
	p.iter(lrsdl.Progress{Iter: 2, Cost: lrsdl.Cost{Total: 3, Terms: []lrsdl.Term{{Name: "fidelity", Value: 1}, {Name: "sparsity", Value: 2}}}, Elapsed: time.Second})
	if s := b.String(); s != "X: iter 2 cost 3 (fidelity 1, sparsity 2) 1.00s\n" {
		t.Errorf("verbose line %q", s)
	}
}
