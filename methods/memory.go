package methods

import "github.com/lrsdl/lrsdl/methods/internal/dl"

// trainData returns the floats of the samples a method trains on: their
// span (dl.SpanFloats) when reduced, the class-ordered samples being then
// dropped, else the d·N samples.
func trainData(info dl.Info, set dl.Settings) float64 {
	if span := dl.SpanFloats(info, set); span > 0 {
		return span
	}
	return float64(info.Dim) * float64(info.N)
}

// dlsiPlan returns the floats DLSI's Fit allocates at most for C classes
// of k atoms (K = C·k) on dr rows (dl.SpanRows):
//
//	trainData       the samples
//	dr² + K²        the inverse and the Gram matrix of the incoherent update
//	2·dr·K          the dictionaries and their update
//	11·dr·k         one class's ADMM and update of the inverse
func dlsiPlan(info dl.Info, set dl.Settings, C, k int) float64 {
	dr, K := dl.SpanRows(info, set), float64(C*k)
	return trainData(info, set) + dr*dr + K*K + 2*dr*K + 11*dr*float64(k)
}

// coparPlan returns the floats COPAR's Fit allocates at most for kb atoms
// (class and shared) on dr rows (dl.SpanRows) in iters outer iterations:
//
//	trainData       the samples
//	2·dr·kb         the dictionary and its update
//	6·kb·N + 3·kb²  the codes, the X step's products and Gram matrices
//	2·kb·N          the exact X step's iterates, once it replaces FISTA (coparUseExact)
func coparPlan(info dl.Info, set dl.Settings, kb, iters int) float64 {
	dr, K, N := dl.SpanRows(info, set), float64(kb), float64(info.N)
	codes := 6.0
	if iters > coparFISTAOuter && coparUseExact(int(dr), kb, info.N) {
		codes = 8
	}
	return trainData(info, set) + 2*dr*K + codes*K*N + 3*K*K
}
