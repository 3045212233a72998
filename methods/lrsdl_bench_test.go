package methods

import (
	"context"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/blas"
	"github.com/lrsdl/lrsdl/data"
	"github.com/lrsdl/lrsdl/internal/cputime"
	"github.com/lrsdl/lrsdl/internal/parallel"
	"github.com/lrsdl/lrsdl/methods/internal/dl"
	"github.com/lrsdl/lrsdl/methods/internal/fisher"
	"github.com/lrsdl/lrsdl/methods/internal/toy"
)

// BenchmarkLRSDLTrainARGender700 trains LRSDL on all 700 AR gender training
// samples (k=20, k0=10, λ1=λ2=0.01, η=0.1, 30 outer iterations).
func BenchmarkLRSDLTrainARGender700(b *testing.B) {
	ds, err := data.Load(toy.ARGender(b), data.LoadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer toy.CPUMetric(b)()
	for i := 0; i < b.N; i++ {
		m := &LRSDL{Options: LRSDLOptions{K0: 10, Eta: 0.1, FDDLOptions: FDDLOptions{K: 20, Lambda1: 0.01, Lambda2: 0.01, Iters: 30, Tol: -1}}}
		if err := m.Fit(context.Background(), ds.Train.Y, ds.Train.Labels); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTwoCores trains LRSDL on the 700 AR gender training samples (as
// BenchmarkGemmThreads) switching between one core (GOMAXPROCS=1,
// SetOpenBLASThreads(1)) and two (GOMAXPROCS=2, SetOpenBLASThreads(2))
// from one outer iteration to the next, twice per op with the opposite
// phase, so that every iteration is timed once on each. It reports the
// summed iteration times on one core and on two (one-s/op, two-s/op),
// their ratio (two/one) and the host's steal over the run (steal%,
// cputime.StealShare): two cores gain less the more the host takes.
// Switching every 20 ms or so keeps a load that drifts during the run
// from favouring either; the model is the same
// whatever GOMAXPROCS, so both fits do the same work, and the benchmark
// checks their dictionaries are identical.
func BenchmarkTwoCores(b *testing.B) {
	ds, err := data.Load(toy.ARGender(b), data.LoadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer blas.SetOpenBLASThreads(blas.SetOpenBLASThreads(0))
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	use := func(procs int) {
		runtime.GOMAXPROCS(procs)
		blas.SetOpenBLASThreads(procs)
	}
	var spent [3]time.Duration // by procs
	fit := func(first int) *mat.Dense {
		procs, prev := first, time.Duration(0)
		use(procs)
		progress := func(p lrsdl.Progress) {
			spent[procs] += p.Elapsed - prev
			procs = 3 - procs
			use(procs)
			prev = p.Elapsed
		}
		m := &LRSDL{Options: LRSDLOptions{K0: 10, Eta: 0.1, FDDLOptions: FDDLOptions{K: 20, Lambda1: 0.01, Lambda2: 0.01, Iters: 30, Tol: Off, Progress: progress}}}
		if err := m.Fit(context.Background(), ds.Train.Y, ds.Train.Labels); err != nil {
			b.Fatal(err)
		}
		return m.fm.Db
	}
	b.ResetTimer()
	start, steal := time.Now(), cputime.Steal()
	for range b.N {
		if !mat.Equal(fit(1), fit(2)) {
			b.Fatal("dictionaries differ between the phases")
		}
	}
	b.ReportMetric(spent[1].Seconds()/float64(b.N), "one-s/op")
	b.ReportMetric(spent[2].Seconds()/float64(b.N), "two-s/op")
	b.ReportMetric(spent[2].Seconds()/spent[1].Seconds(), "two/one")
	b.ReportMetric(100*cputime.StealShare(steal, time.Since(start)), "steal%")
}

// TestTwoCoresSameModel trains LRSDL at the size of AR gender training (2
// classes of 350 samples, d=300, k=20, k0=10), where kernels split their
// work between the cores, at GOMAXPROCS=1 and 2 (SetOpenBLASThreads 1 and
// 2), and checks the dictionaries are identical.
func TestTwoCoresSameModel(t *testing.T) {
	if testing.Short() {
		t.Skip("trains at AR-gender size")
	}
	Y, labels, _ := toy.Shared(2, 350, 300, 21)
	defer blas.SetOpenBLASThreads(blas.SetOpenBLASThreads(0))
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	var dicts []*mat.Dense
	for _, procs := range []int{1, 2} {
		runtime.GOMAXPROCS(procs)
		blas.SetOpenBLASThreads(procs)
		m := &LRSDL{Options: LRSDLOptions{K0: 10, FDDLOptions: FDDLOptions{K: 20, Iters: 3, Tol: Off}}}
		if err := m.Fit(context.Background(), Y, labels); err != nil {
			t.Fatal(err)
		}
		dicts = append(dicts, m.fm.Db)
	}
	if !mat.Equal(dicts[0], dicts[1]) {
		t.Error("GOMAXPROCS=1 and 2 gave different dictionaries")
	}
}

// BenchmarkFlowerFit3_LRSDL and _FDDL train on Oxford Flower split 1
// (d=10000, N=1020, 17 classes, default options) for 3 outer iterations;
// the log gives the time of each iteration.
func BenchmarkFlowerFit3_LRSDL(b *testing.B) { benchFlowerFit(b, 10) }

func BenchmarkFlowerFit3_FDDL(b *testing.B) { benchFlowerFit(b, -1) }

func benchFlowerFit(b *testing.B, k0 int) {
	ds, err := data.Load("../testdata/flower17-split1.mat", data.LoadOptions{Normalize: true})
	if err != nil {
		b.Skip(err)
	}
	for i := 0; i < b.N; i++ {
		start := time.Now()
		o := FDDLOptions{Iters: 3, Tol: -1, Progress: func(p lrsdl.Progress) {
			b.Logf("iter %d at %v cost %.10g", p.Iter, time.Since(start).Round(time.Millisecond), p.Cost.Total)
		}}
		m := &LRSDL{Options: LRSDLOptions{FDDLOptions: o, K0: k0}}
		if err := m.Fit(context.Background(), ds.Train.Y, ds.Train.Labels); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLRSDLTrainARGender700ToRef trains as BenchmarkLRSDLTrainARGender700
// (but up to 300 outer iterations) and stops at the first ("iters") whose
// cost is at most
// that of the reference training ("ref-cost": 30 outer iterations of the
// same loop with plain FISTA and fixed inner counts, run before the timer).
func BenchmarkLRSDLTrainARGender700ToRef(b *testing.B) {
	ds, err := data.Load(toy.ARGender(b), data.LoadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	o := LRSDLOptions{K0: 10, Eta: 0.1, FDDLOptions: FDDLOptions{K: 20, Lambda1: 0.01, Lambda2: 0.01, Iters: 30, Tol: -1}}
	ref := math.Inf(1)
	p := mustParams(b, &o)
	p.Plain = true
	p.Progress = func(pr lrsdl.Progress) { ref = pr.Cost.Total }
	var f fisher.Model
	if err := f.Fit(context.Background(), "LRSDL", ds.Train.Y, ds.Train.Labels, func(dl.Info) (fisher.Params, error) { return p, nil }); err != nil {
		b.Fatal(err)
	}
	var iters int
	var cost float64
	done := toy.CPUMetric(b)
	for i := 0; i < b.N; i++ {
		ctx, cancel := context.WithCancel(context.Background())
		iters = 0
		m := &LRSDL{Options: o}
		m.Options.Iters = 300
		last := math.Inf(1)
		m.Options.Progress = func(pr lrsdl.Progress) {
			last = pr.Cost.Total
			if iters == 0 && pr.Cost.Total <= ref {
				iters, cost = pr.Iter, pr.Cost.Total
				cancel()
			}
		}
		err := m.Fit(ctx, ds.Train.Y, ds.Train.Labels)
		cancel()
		if iters == 0 {
			b.Fatalf("reference cost %v not reached in 300 iterations (%v, last %v)", ref, err, last)
		}
	}
	done()
	b.ReportMetric(ref, "ref-cost")
	b.ReportMetric(cost, "cost")
	b.ReportMetric(float64(iters), "iters")
}

// BenchmarkTwoCoresCeiling measures what a second core can give on this
// machine, whatever the library does: per op it times r one-thread
// products (blas64.Gemm, SetOpenBLASThreads(1), so none is split) on one
// goroutine at GOMAXPROCS=1, then r on each of two goroutines at
// GOMAXPROCS=2, alternating which phase comes first. two/one is the two
// goroutines' time over twice the one's: 0.5 when the cores share nothing,
// and the least two/one of BenchmarkTwoCores for work made of such
// products. The shapes are those of AR gender training (K̄=50, d=300,
// N=700) and 700³; "ProxStep" runs FISTA's step (blas.ProxStep) on
// m×n codes of each goroutine's own, a pass over memory that stays in a
// core's cache (one class of AR gender, 50×350, and the whole 50×700);
// "scalar" is a dependent chain of multiply-adds on one value (no vector
// unit, no memory), for contrast. Pure Go's Gemm shares
// a 700³ product between goroutines itself; the two phases still do the
// same work, so two/one still compares throughputs.
func BenchmarkTwoCoresCeiling(b *testing.B) {
	var sink [2]float64
	for _, s := range []struct {
		name    string
		m, k, n int
		prox    bool // FISTA's step (blas.ProxStep) on m×n codes instead of a product
	}{{"Gemm50x50x700", 50, 50, 700, false}, {"Gemm50x300x700", 50, 300, 700, false}, {"Gemm700x700x700", 700, 700, 700, false},
		{"ProxStep50x350", 50, 1, 350, true}, {"ProxStep50x700", 50, 1, 700, true}, {"scalar", 0, 0, 0, false}} {
		b.Run(s.name, func(b *testing.B) {
			// Restored by each sub-benchmark: testing reports one that
			// leaves GOMAXPROCS changed.
			defer blas.SetOpenBLASThreads(blas.SetOpenBLASThreads(1))
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
			rng := rand.New(rand.NewPCG(1, 1))
			gen := func(r, c int) blas64.General {
				g := blas64.General{Rows: r, Cols: c, Stride: c, Data: make([]float64, r*c)}
				for i := range g.Data {
					g.Data[i] = rng.NormFloat64()
				}
				return g
			}
			reps := 1
			if s.m > 0 {
				reps = max(1, 1e8/(s.m*s.k*s.n))
			}
			var work [2]func()
			for w := range work {
				if s.m == 0 {
					work[w] = func() {
						x := float64(w)
						for range 50_000_000 {
							x = x*0.999999 + 1e-7
						}
						sink[w] += x
					}
					continue
				}
				if s.prox {
					z, x, g := gen(s.m, s.n), gen(s.m, s.n), gen(s.m, s.n)
					thr := []float64{0.5}
					// As jobs, so that ProxStep keeps every chunk on its caller.
					work[w] = func() {
						parallel.Job(func() {
							for range reps {
								d, _, _ := blas.ProxStep(z.Data, x.Data, g.Data, s.m, s.n, 1e-3, thr, 0.5)
								sink[w] += d
							}
						})
					}
					continue
				}
				a, x, c := gen(s.m, s.k), gen(s.k, s.n), gen(s.m, s.n)
				work[w] = func() {
					for range reps {
						blas64.Gemm(gblas.NoTrans, gblas.NoTrans, 1, a, x, 0, c)
					}
				}
			}
			one := func() time.Duration {
				runtime.GOMAXPROCS(1)
				t := time.Now()
				work[0]()
				return time.Since(t)
			}
			two := func() time.Duration {
				runtime.GOMAXPROCS(2)
				t := time.Now()
				done := make(chan struct{})
				go func() { work[1](); close(done) }()
				work[0]()
				<-done
				return time.Since(t)
			}
			one()
			two() // warm-up
			var t1, t2 time.Duration
			b.ResetTimer()
			for i := range b.N {
				if i%2 == 0 {
					t1 += one()
					t2 += two()
				} else {
					t2 += two()
					t1 += one()
				}
			}
			b.ReportMetric(t2.Seconds()/(2*t1.Seconds()), "two/one")
		})
	}
}
