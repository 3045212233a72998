//go:build openblas && cgo

// Package openblas is the cgo side of the openblas build: OpenBLAS's
// configuration, kernel set and thread count, and the CPU features that
// decide which kernel set suits the CPU. Go assembly and cgo cannot share a
// package, so this lives apart from package blas.
package openblas

/*
#cgo LDFLAGS: -lopenblas
char* openblas_get_config(void);
char* openblas_get_corename(void);
int openblas_get_num_threads(void);
void openblas_set_num_threads(int);

// cpu_has reports AVX-512 (F, DQ, BW, VL; feature 0) or AVX2 with FMA (1).
static int cpu_has(int f) {
#if defined(__x86_64__) || defined(__i386__)
	__builtin_cpu_init();
	if (f == 0)
		return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
			__builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl");
	return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
	return 0;
#endif
}
*/
import "C"

// Config returns OpenBLAS's build configuration.
func Config() string { return C.GoString(C.openblas_get_config()) }

// CoreName returns the kernel set OpenBLAS chose for this CPU.
func CoreName() string { return C.GoString(C.openblas_get_corename()) }

// Threads returns OpenBLAS's thread count.
func Threads() int { return int(C.openblas_get_num_threads()) }

// SetThreads sets OpenBLAS's thread count.
func SetThreads(n int) { C.openblas_set_num_threads(C.int(n)) }

// HasAVX512 reports AVX-512 F, DQ, BW and VL.
func HasAVX512() bool { return C.cpu_has(0) != 0 }

// HasAVX2 reports AVX2 with FMA.
func HasAVX2() bool { return C.cpu_has(1) != 0 }
