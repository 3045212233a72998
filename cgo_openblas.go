//go:build openblas && cgo

package lrsdl

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
// OpenBLAS. Its Dgemm runs products below GemmThreadsMin multiply-adds on
// one OpenBLAS thread (see Level3).
type OpenBLAS struct {
	blas.Float64Level1
	blas.Float64Level2
	blas.Float64Level3
}

var openBLAS = OpenBLAS{gonum.Implementation{}, gonum.Implementation{}, Level3{}}

// Level3 is OpenBLAS's level 3 through netlib, with a thread policy for
// Dgemm: a product of fewer than GemmThreadsMin multiply-adds m·n·k runs
// on one OpenBLAS thread (openblas_set_num_threads(1), the count restored
// after), larger ones on all of them. OpenBLAS threads products from
// 2.6e5 multiply-adds on; at the sizes of the per-class and Gram products
// of training the second thread gains little, and its spinning between
// calls takes the core from the library's goroutines. Threaded OpenBLAS
// also rounds differently from one thread, so below GemmThreadsMin the
// result no longer depends on OpenBLAS's thread count.
type Level3 struct{ netlib.Implementation }

// GemmThreadsMin is the size m·n·k of a Dgemm from which Level3 runs it on
// all of OpenBLAS's threads. At 2^25 every product of AR gender training
// (d=300, N=700, K̄=50: at most 1.1e7) runs on one thread and the Gram
// products at C=100, d=300 (1.5e8) on all; BenchmarkGemmThreads in package
// methods compares one thread, every product threaded and this policy.
var GemmThreadsMin = 1 << 25

// Dgemm is netlib's Dgemm under the thread policy of Level3.
func (l Level3) Dgemm(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	if float64(m)*float64(n)*float64(k) >= float64(GemmThreadsMin) {
		l.Implementation.Dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	t := C.openblas_get_num_threads()
	if t > 1 {
		C.openblas_set_num_threads(1)
		defer C.openblas_set_num_threads(t)
	}
	l.Implementation.Dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// SetOpenBLASThreads sets the number of threads OpenBLAS runs large
// products on (openblas_set_num_threads) and returns the previous number;
// n < 1 leaves it. It does nothing in builds without OpenBLAS (returns 1).
func SetOpenBLASThreads(n int) int {
	prev := int(C.openblas_get_num_threads())
	if n >= 1 {
		C.openblas_set_num_threads(C.int(n))
	}
	return prev
}

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
