package dl

// Settings choose between equivalent computations of the training engines.
// The zero value is what the library runs; tests and benchmarks set the
// other values to check one path against another or to time them. A model
// keeps its Settings and hands them down with every call into an engine.
type Settings struct {
	// NoSpan trains on the samples themselves, never on their coordinates
	// in the span of the training set (ReduceSpan).
	NoSpan bool
	// SpanRoute chooses how ThinQR forms its Gram matrix.
	SpanRoute SpanRoute

	// XStep chooses the Fisher X step's evaluation (fisher engine).
	XStep XStep
	// NoOverlap runs the Fisher outer iteration's steps one after another.
	NoOverlap bool
	// BlockGemm always forms the Fisher X step's gradient by block
	// products on a multithreaded BLAS, whatever the size.
	BlockGemm bool
	// NoDictSpan runs D2L2R2's dictionary step in the data space.
	NoDictSpan bool
	// NoGramReuse recomputes DLRD's Gram products every iteration.
	NoGramReuse bool
	// NoDLRDReduce trains DLRD's sparse error in the data space.
	NoDLRDReduce bool

	// NoWoodburyInverse solves E-DLSI's Woodbury systems by Cholesky,
	// never by an explicit inverse.
	NoWoodburyInverse bool
}

// SpanRoute chooses how ThinQR forms the Gram matrix of the samples.
type SpanRoute int

const (
	// SpanAuto takes the sparse route when at most SpanDensity of the
	// entries are non-zero.
	SpanAuto SpanRoute = iota
	// SpanDense always forms the Gram matrix densely.
	SpanDense
	// SpanSparse always forms it from the non-zeros.
	SpanSparse
)

// density returns the largest fraction of non-zeros of the sparse route.
func (r SpanRoute) density() float64 {
	switch r {
	case SpanDense:
		return 0
	case SpanSparse:
		return 1
	}
	return SpanDensity
}

// XStep chooses how the Fisher X step evaluates its gradient.
type XStep int

const (
	XStepAuto   XStep = iota // by the sizes
	XStepShared              // always the shared products
	XStepFused               // always the fused per-class pass
)
