//go:build openblas && cgo

package lrsdl

/*
#cgo LDFLAGS: -lopenblas
char* openblas_get_config(void);
char* openblas_get_corename(void);
int openblas_get_num_threads(void);
void openblas_set_num_threads(int);

// Parts of OpenBLAS's thread server, weak because single-threaded builds
// lack them.
extern int blas_thread_shutdown_(void) __attribute__((weak));
extern void openblas_read_env(void) __attribute__((weak));
extern int openblas_thread_timeout(void) __attribute__((weak));

// restart_threads rereads OpenBLAS's environment and ends its threads; the
// next threaded call starts them with the OPENBLAS_THREAD_TIMEOUT read.
static void restart_threads(void) {
	if (blas_thread_shutdown_ && openblas_read_env) {
		openblas_read_env();
		blas_thread_shutdown_();
	}
}

static int thread_timeout(void) { return openblas_thread_timeout ? openblas_thread_timeout() : -1; }

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
	"os"
	"strconv"
	"sync"
	"sync/atomic"

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
// OpenBLAS. Level 3 runs under the thread policy of Level3.
type OpenBLAS struct {
	blas.Float64Level1
	blas.Float64Level2
	blas.Float64Level3
}

var openBLAS = OpenBLAS{gonum.Implementation{}, gonum.Implementation{}, Level3{}}

// DgemmSerial is Dgemm on one OpenBLAS thread whatever its size; calls on
// several goroutines run at once. kernels.Gemm computes the fixed chunks
// of a large product with it on the library's goroutines instead of
// threading it in OpenBLAS, whose threads spin on the other cores after a
// threaded call (threadTimeout), taking them from the goroutines, and on a
// loaded machine must all get a core before the call can end.
func (OpenBLAS) DgemmSerial(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	policy.once.Do(setup)
	policy.run.RLock()
	netlib.Implementation{}.Dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
	policy.run.RUnlock()
}

// Level3 is OpenBLAS's level 3 through netlib under a thread policy:
// OpenBLAS is kept on one thread, and a call of at least GemmThreadsMin
// multiply-adds (m·n·k for Dgemm, half that for the triangular and
// symmetric routines) raises it to SetOpenBLASThreads's count for its
// duration. OpenBLAS threads products from 2.6e5 multiply-adds on, and
// Dtrsm and Dtrmm at any size; each threaded call wakes its idle threads,
// which then spin (see threadTimeout), taking the other cores from the
// library's goroutines. Threaded OpenBLAS also rounds
// differently from one thread, so below GemmThreadsMin results do not
// depend on the thread count. A threaded call runs alone: calls on other
// goroutines wait for it, and it waits for them.
type Level3 struct{ netlib.Implementation }

// GemmThreadsMin is the size, in multiply-adds, of a level-3 call from
// which Level3 runs it on SetOpenBLASThreads's count of threads. At 2^25
// every product of AR gender training (d=300, N=700, K̄=50: at most 1.1e7)
// runs on one thread; E-FDDL and LRSDL hand their larger products (the
// Gram products at C=100, d=300: 1.5e8) to kernels.Gemm, which splits them
// between the cores itself (DgemmSerial). BenchmarkGemmThreads in package
// methods compares one thread, every product threaded and this policy.
var GemmThreadsMin = 1 << 25

// Dgemm is netlib's Dgemm under the thread policy of Level3 (m·n·k
// multiply-adds).
func (l Level3) Dgemm(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	th := begin(float64(m) * float64(n) * float64(k))
	l.Implementation.Dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
	end(th)
}

// Dsymm is netlib's Dsymm under the thread policy of Level3 (m·m·n or
// m·n·n multiply-adds).
func (l Level3) Dsymm(s blas.Side, ul blas.Uplo, m, n int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	th := begin(float64(m) * float64(n) * float64(sideDim(s, m, n)))
	l.Implementation.Dsymm(s, ul, m, n, alpha, a, lda, b, ldb, beta, c, ldc)
	end(th)
}

// Dsyrk is netlib's Dsyrk under the thread policy of Level3 (n·n·k/2
// multiply-adds).
func (l Level3) Dsyrk(ul blas.Uplo, t blas.Transpose, n, k int, alpha float64, a []float64, lda int, beta float64, c []float64, ldc int) {
	th := begin(float64(n) * float64(n) * float64(k) / 2)
	l.Implementation.Dsyrk(ul, t, n, k, alpha, a, lda, beta, c, ldc)
	end(th)
}

// Dsyr2k is netlib's Dsyr2k under the thread policy of Level3 (n·n·k
// multiply-adds).
func (l Level3) Dsyr2k(ul blas.Uplo, t blas.Transpose, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	th := begin(float64(n) * float64(n) * float64(k))
	l.Implementation.Dsyr2k(ul, t, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
	end(th)
}

// Dtrmm is netlib's Dtrmm under the thread policy of Level3 (m·m·n/2 or
// m·n·n/2 multiply-adds).
func (l Level3) Dtrmm(s blas.Side, ul blas.Uplo, tA blas.Transpose, d blas.Diag, m, n int, alpha float64, a []float64, lda int, b []float64, ldb int) {
	th := begin(float64(m) * float64(n) * float64(sideDim(s, m, n)) / 2)
	l.Implementation.Dtrmm(s, ul, tA, d, m, n, alpha, a, lda, b, ldb)
	end(th)
}

// Dtrsm is netlib's Dtrsm under the thread policy of Level3 (m·m·n/2 or
// m·n·n/2 multiply-adds).
func (l Level3) Dtrsm(s blas.Side, ul blas.Uplo, tA blas.Transpose, d blas.Diag, m, n int, alpha float64, a []float64, lda int, b []float64, ldb int) {
	th := begin(float64(m) * float64(n) * float64(sideDim(s, m, n)) / 2)
	l.Implementation.Dtrsm(s, ul, tA, d, m, n, alpha, a, lda, b, ldb)
	end(th)
}

// sideDim returns the order of the square operand of a Left (m) or Right
// (n) routine.
func sideDim(s blas.Side, m, n int) int {
	if s == blas.Left {
		return m
	}
	return n
}

// policy is the state of Level3's thread policy. OpenBLAS runs on one
// thread except inside a threaded call, which holds run for writing; every
// other call holds it for reading. threads is the count for calls of at
// least GemmThreadsMin (SetOpenBLASThreads), sections the number of open
// OneBLASThread sections, and threaded counts the threaded calls (tests).
var policy struct {
	once     sync.Once
	run      sync.RWMutex
	mu       sync.Mutex
	threads  int
	sections int
	threaded atomic.Int64
}

// setup moves OpenBLAS to one thread, keeping its count (OPENBLAS_NUM_THREADS
// or the number of cores) for large calls.
func setup() {
	policy.threads = int(C.openblas_get_num_threads())
	C.openblas_set_num_threads(1)
	if _, set := os.LookupEnv("OPENBLAS_THREAD_TIMEOUT"); !set {
		os.Setenv("OPENBLAS_THREAD_TIMEOUT", strconv.Itoa(threadTimeout))
		C.restart_threads()
		os.Unsetenv("OPENBLAS_THREAD_TIMEOUT")
	}
}

// threadTimeout is the OPENBLAS_THREAD_TIMEOUT that setup gives OpenBLAS
// unless the environment sets one: after a threaded call, OpenBLAS's
// threads spin for 2^threadTimeout clock ticks (about 1 ms) waiting for
// the next, then sleep. At OpenBLAS's default, 28 (about 0.1 s), they took
// the other cores from the library's goroutines after every threaded call:
// D2L2R2 on Flower, which makes about 200, used a fifth more CPU time and
// 5–10 % more wall time. It also kept an idle core awake, which woke the
// goroutines sooner: JDL on Flower (20 threaded calls) takes 6 % more wall
// time at 21, and a third less CPU time (BenchmarkFlowerFit in package
// methods, run with and without OPENBLAS_THREAD_TIMEOUT=28).
const threadTimeout = 21

// callThreads returns the number of OpenBLAS threads a level-3 call of work
// multiply-adds runs on now.
func callThreads(work float64) int {
	policy.once.Do(setup)
	if work < float64(GemmThreadsMin) {
		return 1
	}
	policy.mu.Lock()
	n := policy.threads
	if policy.sections > 0 {
		n = 1
	}
	policy.mu.Unlock()
	return n
}

// begin starts a level-3 call of work multiply-adds and returns its thread
// count, for end.
func begin(work float64) int {
	n := callThreads(work)
	if n <= 1 {
		policy.run.RLock()
		return 1
	}
	policy.run.Lock()
	policy.threaded.Add(1)
	C.openblas_set_num_threads(C.int(n))
	return n
}

func end(n int) {
	if n <= 1 {
		policy.run.RUnlock()
		return
	}
	C.openblas_set_num_threads(1)
	policy.run.Unlock()
}

// OneBLASThread runs every OpenBLAS call on one thread, whatever its size,
// until the returned function is called. Calls nest and overlap across
// goroutines: the policy returns when the last section ends. Work spread
// over goroutines (cross-validation folds, parallel splits) runs inside
// one, so that no product is threaded one time and not the next: threaded
// OpenBLAS rounds differently, and results would depend on scheduling. In
// builds without OpenBLAS it does nothing.
func OneBLASThread() (end func()) {
	policy.once.Do(setup)
	policy.mu.Lock()
	policy.sections++
	policy.mu.Unlock()
	var done sync.Once
	return func() {
		done.Do(func() {
			policy.mu.Lock()
			policy.sections--
			policy.mu.Unlock()
		})
	}
}

// SetOpenBLASThreads sets the number of threads OpenBLAS runs level-3
// calls of at least GemmThreadsMin multiply-adds on, outside OneBLASThread
// sections, and returns the previous number; n < 1 leaves it. Smaller calls
// always run on one thread. It does nothing in builds without OpenBLAS
// (returns 1).
func SetOpenBLASThreads(n int) int {
	policy.once.Do(setup)
	policy.mu.Lock()
	defer policy.mu.Unlock()
	prev := policy.threads
	if n >= 1 {
		policy.threads = n
	}
	return prev
}

func backendDetail() string {
	if Backend() != "openblas" {
		return "gonum pure-Go BLAS (OpenBLAS linked, not in use: see UseOpenBLAS)"
	}
	return fmt.Sprintf("%s, core %s, %d threads from %d multiply-adds, 1 below", C.GoString(C.openblas_get_config()),
		C.GoString(C.openblas_get_corename()), SetOpenBLASThreads(0), GemmThreadsMin)
}

func openBLASCoreHint() string {
	return coreHint(C.GoString(C.openblas_get_corename()), C.cpu_has(0) != 0, C.cpu_has(1) != 0)
}

// threads returns OpenBLAS's thread count as it is now.
func threads() int { return int(C.openblas_get_num_threads()) }

// spinTimeout returns the OPENBLAS_THREAD_TIMEOUT OpenBLAS has read (0:
// none; -1: OpenBLAS has no thread server).
func spinTimeout() int { return int(C.thread_timeout()) }
