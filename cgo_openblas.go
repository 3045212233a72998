//go:build openblas && cgo

package lrsdl

/*
#cgo LDFLAGS: -lopenblas
char* openblas_get_config(void);
char* openblas_get_corename(void);
int openblas_get_num_threads(void);

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

import (
	"fmt"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
	"gonum.org/v1/netlib/blas/netlib"
)

const openBLASLinked = true

// OpenBLAS is the openblas build's BLAS: level 3 (Gemm, Syrk, Trsm, …) from
// OpenBLAS through netlib, levels 1 and 2 from gonum. OpenBLAS's ddot and
// dgemv round differently depending on the alignment of their arguments in
// memory, so the same seed could train different models within one process;
// gonum's are reproducible, and these memory-bound routines gain little from
// OpenBLAS.
type OpenBLAS struct {
	blas.Float64Level1
	blas.Float64Level2
	blas.Float64Level3
}

var openBLAS = OpenBLAS{gonum.Implementation{}, gonum.Implementation{}, netlib.Implementation{}}

func backendDetail() string {
	if Backend() != "openblas" {
		return "gonum pure-Go BLAS (OpenBLAS linked, not in use: see UseOpenBLAS)"
	}
	return fmt.Sprintf("%s, core %s, %d threads", C.GoString(C.openblas_get_config()),
		C.GoString(C.openblas_get_corename()), int(C.openblas_get_num_threads()))
}

func openBLASCoreHint() string {
	return coreHint(C.GoString(C.openblas_get_corename()), C.cpu_has(0) != 0, C.cpu_has(1) != 0)
}
