package methods

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/methods/internal/dl"
)

// toyOptions exercises the option machinery.
type toyOptions struct {
	K     int     `json:"k"`
	Eta   float64 `json:"eta"`
	Rate  float64 `json:"rate"`
	LC    bool    `json:"lc"`
	Seed  uint64  `json:"seed"`
	Iters int     `json:"iters"`
}

func (o *toyOptions) spec() optSpec {
	return optSpec{method: "TOY", opts: []opt{
		{name: "k", doc: "atoms per class", i: &o.K, def: 20, defDoc: "min(20, smallest class)", min: 1, perClass: true,
			dataDef: func(d dl.Info) float64 { return float64(min(20, d.MinClass)) }},
		{name: "eta", doc: "weight", f: &o.Eta, def: 0.1, min: 0, off: true},
		{name: "rate", doc: "in (0, 1]", f: &o.Rate, def: 0.5, min: 0, max: 1, minOpen: true},
		{name: "lc", doc: "local coding", b: &o.LC},
		{name: "seed", doc: "seed", u: &o.Seed},
		{name: "iters", doc: "iterations", i: &o.Iters, def: 30, min: 1},
	}}
}

func TestResolveDefaultsAndIdempotence(t *testing.T) {
	var o toyOptions
	info := &dl.Info{Dim: 5, N: 30, Classes: 3, MinClass: 7}
	if err := o.spec().resolve(info); err != nil {
		t.Fatal(err)
	}
	want := toyOptions{K: 7, Eta: 0.1, Rate: 0.5, Iters: 30}
	if o != want {
		t.Fatalf("resolved %+v, want %+v", o, want)
	}
	again := o
	if err := again.spec().resolve(&dl.Info{MinClass: 100}); err != nil || again != o {
		t.Fatalf("resolving again gave %+v, %v; want %+v", again, err, o)
	}
	o = toyOptions{Eta: Off}
	if err := o.spec().resolve(info); err != nil || o.Eta != Off || lit(o.Eta) != 0 {
		t.Fatalf("Off: %+v, %v", o, err)
	}
	if p := o.spec().params()[1]; p.Value != "0" || p.Default != "0.1" || p.Range != "≥ 0" {
		t.Fatalf("eta param %+v", p)
	}
}

func TestResolveRejects(t *testing.T) {
	info := &dl.Info{MinClass: 7}
	for _, c := range []struct {
		o    toyOptions
		name string
	}{
		{toyOptions{K: -1}, "k"},
		{toyOptions{K: 8}, "k"},
		{toyOptions{Eta: -2}, "eta"},
		{toyOptions{Eta: math.NaN()}, "eta"},
		{toyOptions{Eta: math.Inf(1)}, "eta"},
		{toyOptions{Rate: 1.5}, "rate"},
		{toyOptions{Rate: Off}, "rate"},
		{toyOptions{Iters: Off}, "iters"},
	} {
		err := c.o.spec().resolve(info)
		var oe *OptionError
		if !errors.As(err, &oe) || oe.Name != c.name || !strings.Contains(err.Error(), c.name+" must be") {
			t.Errorf("%+v: error %v, want an OptionError for %s", c.o, err, c.name)
		}
	}
	if err := (&toyOptions{K: 8}).spec().resolve(nil); err != nil {
		t.Errorf("k=8 without data: %v", err)
	}
}

func TestSetParam(t *testing.T) {
	var o toyOptions
	s := o.spec()
	for _, kv := range [][2]string{{"k", "12"}, {"eta", "0"}, {"rate", "1"}, {"lc", "true"}, {"seed", "42"}, {"iters", "1e2"}} {
		if err := s.set(kv[0], kv[1]); err != nil {
			t.Fatalf("set %s=%s: %v", kv[0], kv[1], err)
		}
	}
	if want := (toyOptions{K: 12, Eta: Off, Rate: 1, LC: true, Seed: 42, Iters: 100}); o != want {
		t.Fatalf("set gave %+v, want %+v", o, want)
	}
	for _, kv := range [][2]string{{"k", "0"}, {"k", "-1"}, {"k", "abc"}, {"k", "2.5"}, {"k", "1e300"}, {"eta", "-1"},
		{"eta", "NaN"}, {"rate", "0"}, {"lc", "maybe"}, {"seed", "-3"}, {"nope", "1"}} {
		before := o
		err := s.set(kv[0], kv[1])
		if err == nil || !strings.Contains(err.Error(), kv[0]) {
			t.Errorf("set %s=%s: error %v, want one naming the option", kv[0], kv[1], err)
		}
		if o != before {
			t.Errorf("set %s=%s changed the options on error: %+v", kv[0], kv[1], o)
		}
	}
}

func TestRunOuter(t *testing.T) {
	costs := []float64{10, 5, 4.9999, 4.9998, 1}
	var calls []lrsdl.Progress
	l := dl.Loop{Iters: len(costs), Tol: 1e-3, Progress: func(p lrsdl.Progress) { calls = append(calls, p) }}
	info, err := dl.RunOuter(context.Background(), l, func(it int, want bool) (lrsdl.Cost, error) {
		return lrsdl.Cost{Total: costs[it-1]}, nil
	})
	if err != nil || info.Iters != 3 || info.Stop != lrsdl.StopConverged || len(calls) != 3 || calls[2].Stop != lrsdl.StopConverged || calls[1].Stop != "" {
		t.Fatalf("converging run: %+v, %v, progress %+v", info, err, calls)
	}
	// The first iteration is never compared with the starting point.
	info, _ = dl.RunOuter(context.Background(), dl.Loop{Iters: 3, Tol: 0.5}, func(int, bool) (lrsdl.Cost, error) { return lrsdl.Cost{Total: 1}, nil })
	if info.Iters != 2 || info.Stop != lrsdl.StopConverged {
		t.Fatalf("flat cost: %+v, want a stop at iteration 2", info)
	}
	info, _ = dl.RunOuter(context.Background(), dl.Loop{Iters: 4}, func(_ int, want bool) (lrsdl.Cost, error) {
		if want {
			t.Error("cost wanted with no tolerance and no progress")
		}
		return lrsdl.Cost{}, nil
	})
	if info.Iters != 4 || info.Stop != lrsdl.StopMaxIters {
		t.Fatalf("no tolerance: %+v", info)
	}
	ctx, cancel := context.WithCancel(context.Background())
	info, err = dl.RunOuter(ctx, dl.Loop{Iters: 10}, func(it int, _ bool) (lrsdl.Cost, error) {
		if it == 2 {
			cancel()
		}
		return lrsdl.Cost{}, nil
	})
	if !errors.Is(err, context.Canceled) || info.Iters != 2 || info.Stop != lrsdl.StopCancelled {
		t.Fatalf("cancelled: %+v, %v", info, err)
	}
}

func TestCheckMemory(t *testing.T) {
	prev := SetMemoryLimit(1 << 20)
	defer SetMemoryLimit(prev)
	if err := dl.CheckMemory("TOY", 1000, "k"); err != nil {
		t.Fatal(err)
	}
	err := dl.CheckMemory("TOY", 1e9, "k (atoms per class)")
	if err == nil || !strings.Contains(err.Error(), "8.0 GB") || !strings.Contains(err.Error(), "lower k (atoms per class)") {
		t.Fatalf("over the limit: %v", err)
	}
	if dl.CheckMemory("TOY", math.Inf(1), "k") == nil || dl.CheckMemory("TOY", math.NaN(), "k") == nil {
		t.Fatal("infinite or NaN need passed")
	}
	SetMemoryLimit(0)
	if MemoryLimit() <= 0 {
		t.Fatalf("default limit %d", MemoryLimit())
	}
}

// TestSparsityWeightBound checks that a training sparsity weight at which
// every code is zero is an error naming the bound, for every method that
// declares one, and that the bound is sound: just below it LRSDL still
// learns non-zero codes.
func TestSparsityWeightBound(t *testing.T) {
	var o toyOptions
	s := o.spec()
	s.opts[1].zeroAt = 2
	o.Eta = 3
	info := &dl.Info{MinClass: 5, MaxNorm: 1.5}
	if err := s.resolve(info); err == nil || !strings.Contains(err.Error(), "below 3") {
		t.Errorf("eta=3 with a bound of 2×1.5: %v", err)
	}
	o.Eta = 2.9
	if err := s.resolve(info); err != nil {
		t.Errorf("eta=2.9 below the bound: %v", err)
	}
}
