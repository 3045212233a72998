package methods

import "github.com/lrsdl/lrsdl/methods/internal/dl"

// spanDim is the number of rows training works on after dl.ReduceSpan: N
// when d > dl.SpanRatio·N, else d.
func spanDim(info dl.Info, set dl.Settings) float64 {
	if !set.NoSpan && float64(info.Dim) > dl.SpanRatio*float64(info.N) {
		return float64(info.N)
	}
	return float64(info.Dim)
}

// incoherentMemory returns the floats DLSI and COPAR allocate at most: the span
// factor Q, a few d×d matrices of the incoherent update and the codes.
func incoherentMemory(info dl.Info, set dl.Settings, K int) float64 {
	dr := spanDim(info, set)
	return float64(info.Dim)*float64(info.N) + 6*dr*dr + 3*dr*float64(K) + 3*float64(K)*float64(info.N) + 2*float64(K)*float64(K)
}
