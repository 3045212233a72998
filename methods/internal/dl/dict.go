package dl

import (
	"context"
	"math/rand/v2"
	"slices"

	"github.com/lrsdl/lrsdl/core"
	"github.com/lrsdl/lrsdl/internal/parallel"
	"gonum.org/v1/gonum/mat"
)

// BlockPartition returns C blocks of k atoms followed by the blocks of the
// given sizes (a shared dictionary).
func BlockPartition(C, k int, shared ...int) core.Partition {
	sizes := make([]int, C, C+len(shared))
	for c := range sizes {
		sizes[c] = k
	}
	return core.NewPartition(append(sizes, shared...)...)
}

// InitDict returns the d×part.Len() dictionary whose block b is learned by
// ODL (core.LearnDict, 5 iterations, weight lambda) on the samples of class
// b of Ys (partition sp), or on all of Ys for blocks past the classes.
func InitDict(ctx context.Context, Ys *mat.Dense, sp, part core.Partition, lambda float64, rng *rand.Rand) (*mat.Dense, error) {
	d, _ := Ys.Dims()
	bs := make([]DictBlock, part.Blocks())
	for b := range bs {
		bs[b] = DictBlock{Y: Ys, K: part.Size(b)}
		if b < sp.Blocks() {
			lo, hi := sp.Block(b)
			bs[b].Y = Ys.Slice(0, d, lo, hi)
		}
	}
	if err := LearnDicts(ctx, bs, lambda, rng, core.LearnDictOptions{Iter: 5}); err != nil {
		return nil, err
	}
	D := mat.NewDense(d, part.Len(), nil)
	for b := range bs {
		lo, hi := part.Block(b)
		D.Slice(0, d, lo, hi).(*mat.Dense).Copy(bs[b].D)
	}
	return D, nil
}

// DictBlock is one dictionary of LearnDicts: k atoms learned on Y, giving
// D and the codes X.
type DictBlock struct {
	Y    mat.Matrix
	K    int
	D, X *mat.Dense
}

// LearnDicts sets the D and X of every block to core.LearnDict(ctx, Y, k,
// lambda, rng, opts), called in the order of bs with the one source rng.
// The starting atoms (core.InitDict, the only draws) are drawn in that
// order first, then the blocks learn concurrently, largest first, so the
// result is that of the successive calls whatever GOMAXPROCS is.
func LearnDicts(ctx context.Context, bs []DictBlock, lambda float64, rng *rand.Rand, opts core.LearnDictOptions) error {
	work := make([]int, len(bs))
	total := 0
	for i := range bs {
		D, err := core.InitDict(bs[i].Y, bs[i].K, rng)
		if err != nil {
			return err
		}
		bs[i].D = D
		d, n := bs[i].Y.Dims()
		work[i] = LassoWork(d, bs[i].K, n)
		total += work[i]
	}
	order := make([]int, len(bs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return work[b] - work[a] })
	return ForClasses(len(bs), total, func(j int) error {
		b := &bs[order[j]]
		X, err := core.LearnDictFrom(ctx, b.Y, b.D, lambda, opts)
		b.X = X
		return err
	})
}

// ForClasses runs f(c) for c in [0, C) and returns the error of the first
// class that failed: on up to GOMAXPROCS goroutines when work, the
// multiply-adds of all classes, is at least parallel.MinWork, else on the
// calling goroutine (waking a second core costs more than small classes).
// f must only write what belongs to class c, so the result does not
// depend on the number of goroutines.
func ForClasses(C, work int, f func(c int) error) error {
	return core.ForEach(C, ClassProcs(work), func(_, c int) error { return f(c) })
}

// LassoWork estimates the multiply-adds of core.Lasso on a d×k dictionary
// and n samples: DᵀD and DᵀY, then LassoIterGuess FISTA iterations of k²n.
func LassoWork(d, k, n int) int { return d*k*(k+n) + LassoIterGuess*k*k*n }

// ClassProcs is the number of goroutines for per-class work of work
// multiply-adds in all: parallel.Procs() from parallel.MinWork on, else 1.
func ClassProcs(work int) int {
	if work < parallel.MinWork {
		return 1
	}
	return parallel.Procs()
}

// LassoIterGuess and PowerIterGuess are typical iteration counts of a
// warm-started lasso's FISTA and of core.PowerIter, for work estimates.
const (
	LassoIterGuess = 20
	PowerIterGuess = 20
)
