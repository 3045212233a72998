//go:build amd64 && !noasm

package blas

// hasVec reports whether the vector kernels (proxVec, axpy4Vec, axpy1Vec,
// countVec) may run: the CPU has AVX and the operating system saves the
// YMM registers.
var hasVec = func() bool {
	_, _, c, _ := cpuid(1, 0)
	if c&(1<<27) == 0 || c&(1<<28) == 0 { // OSXSAVE, AVX
		return false
	}
	eax, _ := xgetbv()
	return eax&6 == 6
}()

// hasFMA reports whether dot3x3Vec may run: hasVec and the CPU has FMA3.
var hasFMA = func() bool {
	_, _, c, _ := cpuid(1, 0)
	return hasVec && c&(1<<12) != 0
}()

// dot3x3Vec is dot3x3 for n elements (a multiple of 4) with AVX and FMA.
//
//go:noescape
func dot3x3Vec(a *float64, lda int, b0, b1, b2 *float64, n int, out *[9]float64)

// proxVec is proxScalar for n elements (a multiple of 4) with AVX.
//
//go:noescape
func proxVec(z, w, gr *float64, n int, step, t, beta float64, acc *[12]float64)

func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)

func xgetbv() (eax, edx uint32)

// axpy4Vec is addScaled4 for n elements (a multiple of 4) with AVX.
//
//go:noescape
func axpy4Vec(acc *float64, n int, v *float64, a0, a1, a2, a3 *float64)

// axpy1Vec is axpy1 for n elements (a multiple of 4) with AVX.
//
//go:noescape
func axpy1Vec(acc *float64, n int, v float64, a *float64)

// countVec is countRow for n elements (a multiple of 4) with AVX.
//
//go:noescape
func countVec(cnt *int, row *float64, n int) int

// proxShiftVec is proxShiftScalar for n elements (a multiple of 4) with AVX.
//
//go:noescape
func proxShiftVec(z, w, gr, br *float64, n int, o, step, t, beta float64, acc *[12]float64, ws *[4]float64)
