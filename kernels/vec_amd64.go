//go:build amd64 && !noasm

package kernels

// hasVec reports whether the vector kernels (proxVec, axpy4Vec, axpyNVec,
// countVec) may run:
// the CPU has AVX and the operating system saves the YMM registers.
var hasVec = func() bool {
	_, _, c, _ := cpuid(1, 0)
	if c&(1<<27) == 0 || c&(1<<28) == 0 { // OSXSAVE, AVX
		return false
	}
	eax, _ := xgetbv()
	return eax&6 == 6
}()

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

// axpyNVec is addScaledN for n elements (a multiple of 4) with AVX: r of
// 1, 2 or 3 terms (a1, a2 are read only when r needs them).
//
//go:noescape
func axpyNVec(acc *float64, n int, v *float64, a0, a1, a2 *float64, r int)

// countVec is countRow for n elements (a multiple of 4) with AVX.
//
//go:noescape
func countVec(cnt *int, row *float64, n int) int
