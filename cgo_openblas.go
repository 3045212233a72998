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
	"sync"

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

// Dgemm is netlib's Dgemm under the thread policy of Level3: products of
// at least GemmThreadsMin multiply-adds on all OpenBLAS threads, smaller
// ones on one.
func (l Level3) Dgemm(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	if float64(m)*float64(n)*float64(k) >= float64(GemmThreadsMin) {
		l.Implementation.Dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	oneThread{l.Implementation}.Dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// oneThread is netlib's Dgemm on one OpenBLAS thread.
type oneThread struct{ netlib.Implementation }

func (o oneThread) Dgemm(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	acquireOne()
	defer releaseOne()
	o.Implementation.Dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// single counts the callers that want OpenBLAS on one thread; saved is the
// thread count to restore when the last of them ends.
var single struct {
	sync.Mutex
	n, saved int
}

// OneBLASThread runs OpenBLAS on one thread until the returned function is
// called. Calls nest and overlap across goroutines: the first sets one
// thread, the last restores the count it found. Work spread over
// goroutines (cross-validation folds, parallel splits) runs inside one, so
// that no product is threaded one time and not the next: threaded OpenBLAS
// rounds differently, and results would depend on scheduling. In builds
// without OpenBLAS it does nothing.
func OneBLASThread() (end func()) {
	acquireOne()
	return releaseOne
}

func acquireOne() {
	single.Lock()
	if single.n == 0 {
		single.saved = int(C.openblas_get_num_threads())
		if single.saved > 1 {
			C.openblas_set_num_threads(1)
		}
	}
	single.n++
	single.Unlock()
}

func releaseOne() {
	single.Lock()
	single.n--
	if single.n == 0 && single.saved > 1 {
		C.openblas_set_num_threads(C.int(single.saved))
	}
	single.Unlock()
}

// SetOpenBLASThreads sets the number of threads OpenBLAS runs large
// products on (openblas_set_num_threads) and returns the previous number;
// n < 1 leaves it. It does nothing in builds without OpenBLAS (returns 1).
// Inside OneBLASThread it sets the count restored at its end.
func SetOpenBLASThreads(n int) int {
	single.Lock()
	defer single.Unlock()
	if single.n > 0 {
		prev := single.saved
		if n >= 1 {
			single.saved = n
		}
		return prev
	}
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

// threads returns OpenBLAS's thread count as it is now.
func threads() int { return int(C.openblas_get_num_threads()) }
