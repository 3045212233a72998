package blas

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/lrsdl/lrsdl/internal/cputime"
	"github.com/lrsdl/lrsdl/internal/parallel"
	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// Run briefly, e.g.
//
//	go test -run '^$' -bench . -benchtime 3x ./blas/
//	go test -tags openblas -run '^$' -bench . -benchtime 3x ./blas/
//
// GFLOP/s counts the flops of the dense product each kernel replaces
// (2mkn), so kernel and Dgemm rates of one shape compare as times do;
// sparse kernels also report the flops they do (2·m·nnz) as "useful-GFLOP/s".
// cpu-ms/op is the process's CPU time per operation: on a loaded machine,
// compare single-threaded runs (-cpu 1, OPENBLAS_NUM_THREADS=1) by it.

func reportGFLOPS(b *testing.B, unit string, flops float64) {
	b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, unit)
}

// startCPU resets the timer and returns a function that reports CPU time
// per operation.
func startCPU(b *testing.B) func() {
	b.ResetTimer()
	t := cputime.Process()
	return func() {
		b.StopTimer()
		b.ReportMetric(float64(cputime.Process()-t)/1e6/float64(b.N), "cpu-ms/op")
	}
}

func benchGemm(b *testing.B, tA gblas.Transpose, m, k, n int) {
	benchGemmWith(b, blas64.Gemm, tA, m, k, n)
}

// BenchmarkGemm_M50K50N700 is this package's Gemm at the shape of LRSDL-X's
// gradient product on AR gender (K̄ = 50, N = 700: 4 chunks of columns
// shared between the cores); run it at -cpu 1,2.
func BenchmarkGemm_M50K50N700(b *testing.B) { benchGemmWith(b, Gemm, gblas.NoTrans, 50, 50, 700) }

func benchGemmWith(b *testing.B, gemm func(tA, tB gblas.Transpose, alpha float64, a, b blas64.General, beta float64, c blas64.General), tA gblas.Transpose, m, k, n int) {
	rnd := rand.New(rand.NewPCG(1, 1))
	ar, ac := m, k
	if tA == gblas.Trans {
		ar, ac = k, m
	}
	a, x, dst := randGeneral(rnd, ar, ac, 0), randGeneral(rnd, k, n, 0), randGeneral(rnd, m, n, 0)
	gemm(tA, gblas.NoTrans, 1, a, x, 0, dst) // warm-up: -benchtime 1x times one call
	defer startCPU(b)()
	for range b.N {
		gemm(tA, gblas.NoTrans, 1, a, x, 0, dst)
	}
	reportGFLOPS(b, "GFLOP/s", 2*float64(m)*float64(k)*float64(n))
}

// evenPartition splits n into blocks of size k (the last may be shorter).
func evenPartition(n, k int) []int {
	p := []int{0}
	for p[len(p)-1] < n {
		p = append(p, min(p[len(p)-1]+k, n))
	}
	return p
}

func benchMulM(b *testing.B, K, N, k int) {
	rnd := rand.New(rand.NewPCG(1, 1))
	a, x, dst := randGeneral(rnd, K, K, 0), randGeneral(rnd, K, N, 0), randGeneral(rnd, K, N, 0)
	p := evenPartition(K, k)
	MulM(dst, a, x, p) // warm-up
	defer startCPU(b)()
	for range b.N {
		MulM(dst, a, x, p)
	}
	reportGFLOPS(b, "GFLOP/s", 2*float64(K)*float64(K)*float64(N))
}

// BenchmarkMulM_K1000N2000 and BenchmarkMulM_K700N700 time M(DᵀD)X with 100
// classes of 10 atoms, and with 20 classes of 35 atoms.
func BenchmarkMulM_K1000N2000(b *testing.B) { benchMulM(b, 1000, 2000, 10) }
func BenchmarkMulM_K700N700(b *testing.B)   { benchMulM(b, 700, 700, 35) }

func BenchmarkDgemm_K1000K1000N2000(b *testing.B) { benchGemm(b, gblas.NoTrans, 1000, 1000, 2000) }
func BenchmarkDgemm_K700K700N700(b *testing.B)    { benchGemm(b, gblas.NoTrans, 700, 700, 700) }

// BenchmarkAtB_d500K1000N2000 times DᵀY for dense Y: AtB against the same
// Gemm (BenchmarkDgemmAtB_d500K1000N2000).
func BenchmarkAtB_d500K1000N2000(b *testing.B) {
	rnd := rand.New(rand.NewPCG(1, 1))
	D, Y, dst := randGeneral(rnd, 500, 1000, 0), randGeneral(rnd, 500, 2000, 0), randGeneral(rnd, 1000, 2000, 0)
	defer startCPU(b)()
	for range b.N {
		AtB(dst, D, Y)
	}
	reportGFLOPS(b, "GFLOP/s", 2*500*1000*2000)
}

func BenchmarkDgemmAtB_d500K1000N2000(b *testing.B) { benchGemm(b, gblas.Trans, 1000, 500, 2000) }

// benchSparseAtB times DᵀY on the Flower17 shape: d=10000 features at
// 0.8 % density, K=680, N=1020.
func benchSparseAtB(b *testing.B, csr bool) {
	const d, K, N, density = 10000, 680, 1020, 0.008
	rnd := rand.New(rand.NewPCG(1, 1))
	D, Y, dst := randGeneral(rnd, d, K, 0), randGeneral(rnd, d, N, 0), randGeneral(rnd, K, N, 0)
	sparsify(rnd, Y, density)
	ycsc, ycsr := toCSC(Y), toCSR(Y)
	defer startCPU(b)()
	for range b.N {
		if csr {
			SparseAtBCSR(dst, D, ycsr)
		} else {
			SparseAtB(dst, D, ycsc)
		}
	}
	reportGFLOPS(b, "GFLOP/s", 2*d*K*N)
	reportGFLOPS(b, "useful-GFLOP/s", 2*K*float64(ycsc.NNZ()))
}

func BenchmarkSparseAtB_d10000K680N1020(b *testing.B)    { benchSparseAtB(b, false) }
func BenchmarkSparseAtBCSR_d10000K680N1020(b *testing.B) { benchSparseAtB(b, true) }
func BenchmarkDgemmAtB_d10000K680N1020(b *testing.B)     { benchGemm(b, gblas.Trans, 680, 10000, 1020) }

// BenchmarkSparseX_K1000N2000 times A·X with X at several densities,
// through SparseWorkspace's compressed copy (the sparse path is forced, Aᵀ
// made once), against BenchmarkDgemm_K1000K1000N2000.
func BenchmarkSparseX_K1000N2000(b *testing.B) {
	const K, N = 1000, 2000
	for _, pct := range []float64{1, 2, 5, 10, 20, 40} {
		b.Run(fmt.Sprintf("density%g%%", pct), func(b *testing.B) {
			rnd := rand.New(rand.NewPCG(1, 1))
			a, x, dst := randGeneral(rnd, K, K, 0), randGeneral(rnd, K, N, 0), randGeneral(rnd, K, N, 0)
			sparsify(rnd, x, pct/100)
			ws := NewSparseWorkspace(K, N)
			nnz := NonZeros(x)
			ws.compress(x, K*N)    // warm-up: allocates the workspace
			at := ws.transposeA(a) // made once, as MulAT's callers do
			ws.mulCompressed(dst, at)
			defer startCPU(b)()
			for range b.N {
				ws.compress(x, K*N)
				ws.mulCompressed(dst, at)
			}
			reportGFLOPS(b, "GFLOP/s", 2*K*K*N)
			reportGFLOPS(b, "useful-GFLOP/s", 2*K*float64(nnz))
		})
	}
}

// BenchmarkSparseRowsMul_M1000K1010 and _M500K90 time SparseRowsMul's
// sparse path (forced, with its count of non-zeros) and Gemm on A·G for an
// m×K A at several densities and a K×K G: COPAR-X's FISTA product on
// COIL-100 (m=1000 samples, K=1010 atoms) and on AR gender (m=500, K=90).
func BenchmarkSparseRowsMul_M1000K1010(b *testing.B) { benchSparseRowsMul(b, 1000, 1010) }
func BenchmarkSparseRowsMul_M500K90(b *testing.B)    { benchSparseRowsMul(b, 500, 90) }
func BenchmarkSparseRowsMul_M1020K350(b *testing.B)  { benchSparseRowsMul(b, 1020, 350) }
func BenchmarkSparseRowsMul_M500K200(b *testing.B)   { benchSparseRowsMul(b, 500, 200) }

func benchSparseRowsMul(b *testing.B, m, K int) {
	for _, pct := range []float64{2, 5, 10, 15, 100} {
		name := fmt.Sprintf("density%g%%", pct)
		if pct == 100 {
			name = "Gemm"
		}
		b.Run(name, func(b *testing.B) {
			rnd := rand.New(rand.NewPCG(1, 1))
			a, g, dst := randGeneral(rnd, m, K, 0), randGeneral(rnd, K, K, 0), randGeneral(rnd, m, K, 0)
			sparsify(rnd, a, pct/100)
			defer startCPU(b)()
			for range b.N {
				if pct == 100 {
					Gemm(gblas.NoTrans, gblas.NoTrans, 1, a, g, 0, dst)
					continue
				}
				rowsMul(dst, a, g, NonZeros(a))
			}
			reportGFLOPS(b, "GFLOP/s", float64(2*m*K*K))
		})
	}
}

// BenchmarkProxStep_K1000N2000 and _K50N700 (the codes of AR gender
// training) time the fused FISTA step.
func BenchmarkProxStep_K1000N2000(b *testing.B) { benchProx(b, 1000, 2000) }
func BenchmarkProxStep_K50N700(b *testing.B)    { benchProx(b, 50, 700) }

func benchProx(b *testing.B, K, N int) {
	rnd := rand.New(rand.NewPCG(1, 1))
	z, w, g := randSlice(rnd, K*N), randSlice(rnd, K*N), randSlice(rnd, K*N)
	thr := []float64{0.01}
	b.SetBytes(int64(5 * 8 * K * N))
	defer startCPU(b)()
	for range b.N {
		ProxStep(z, w, g, K, N, 1e-3, thr, 0.5)
	}
}

// BenchmarkProxTwoCores_K50N700 times FISTA's step on AR gender's codes
// (50×700) right after the gradient's product G = H·W (H 50×50), on one
// core and on two in turn (GOMAXPROCS 1 and 2, every 100 iterations), and
// reports the step's time per iteration on each (one-step-µs,
// two-step-µs). Variants: "shared" runs Gemm and ProxStep as FISTA does,
// "serial-step" shares the product and runs the step on the caller,
// "serial" runs both on the caller, and "serial-spin" too, after handing a
// helper work that touches none of the data (so that it spins, as after a
// shared product, during the step). A step that reads the lines the other
// core has just written is slower on two cores than the same step on one.
// In the pure-Go build blas64.Gemm is gonum's, which shares its blocks
// between goroutines itself, so every variant shares the product there.
func BenchmarkProxTwoCores_K50N700(b *testing.B) {
	const K, N, k, rounds = 50, 700, 50, 100
	rnd := rand.New(rand.NewPCG(1, 1))
	gen := func(r, c int) blas64.General {
		return blas64.General{Rows: r, Cols: c, Stride: c, Data: randSlice(rnd, r*c)}
	}
	for _, v := range []string{"shared", "serial-step", "serial", "serial-spin"} {
		b.Run(v, func(b *testing.B) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
			H, W, G, Z := gen(K, k), gen(k, N), gen(K, N), gen(K, N)
			for i := range H.Data {
				H.Data[i] *= 0.01
			}
			thr := []float64{1e-3}
			var acc [12]float64
			var spin spinTask
			var spent [3]time.Duration // by GOMAXPROCS
			for i := range b.N {
				for _, procs := range []int{1 + i%2, 2 - i%2} {
					runtime.GOMAXPROCS(procs)
					for range rounds {
						if v == "serial" || v == "serial-spin" {
							blas64.Gemm(gblas.NoTrans, gblas.NoTrans, 1, H, W, 0, G)
							if v == "serial-spin" {
								parallelFor(2, &spin, parallel.MinWork)
							}
						} else {
							Gemm(gblas.NoTrans, gblas.NoTrans, 1, H, W, 0, G)
						}
						t := time.Now()
						if v == "shared" {
							ProxStep(Z.Data, W.Data, G.Data, K, N, 1e-3, thr, 0.3)
						} else {
							proxRange(Z.Data, W.Data, G.Data, 1e-3, thr[0], 0.3, &acc)
						}
						spent[procs] += time.Since(t)
					}
				}
			}
			per := float64(b.N * rounds)
			b.ReportMetric(spent[1].Seconds()*1e6/per, "one-step-µs")
			b.ReportMetric(spent[2].Seconds()*1e6/per, "two-step-µs")
		})
	}
}

// spinTask is work for parallel.For that touches no shared memory.
type spinTask struct{ sink [2]float64 }

func (t *spinTask) Do(c int) {
	x := float64(c)
	for range 2000 {
		x = x*0.999 + 1e-3
	}
	t.sink[c] = x
}

// BenchmarkCompress_K50N700 times SparseWorkspace's compression of the
// codes of AR gender training (50×700, 30 % non-zero) on its own: the
// part of the sparse product before the multiply.
func BenchmarkCompress_K50N700(b *testing.B) { benchCompress(b, 50, 700, 0.3) }

// BenchmarkCompress_K1000N1000 is BenchmarkCompress_K50N700 at the size of
// the codes of COIL-100 training (10 atoms and 10 samples per class), 5 %
// non-zero.
func BenchmarkCompress_K1000N1000(b *testing.B) { benchCompress(b, 1000, 1000, 0.05) }

func benchCompress(b *testing.B, K, N int, density float64) {
	rnd := rand.New(rand.NewPCG(1, 1))
	x := randGeneral(rnd, K, N, 0)
	sparsify(rnd, x, density)
	ws := NewSparseWorkspace(K, N)
	ws.compress(x, K*N) // warm-up: allocates the workspace
	defer startCPU(b)()
	for range b.N {
		ws.compress(x, K*N)
	}
}

// benchMulThin times c = a·b for a m×n and b n×k, by MulThin if thin and
// by Gemm otherwise (the product mulDense would otherwise take).
func benchMulThin(b *testing.B, thin bool, m, n, k int) {
	rnd := rand.New(rand.NewPCG(5, 6))
	a, x, c := randGeneral(rnd, m, n, 0), randGeneral(rnd, n, k, 0), randGeneral(rnd, m, k, 0)
	w := make([]float64, n*k)
	stop := startCPU(b)
	for i := 0; i < b.N; i++ {
		if thin {
			MulThin(c, a, x, w)
		} else {
			Gemm(gblas.NoTrans, gblas.NoTrans, 1, a, x, 0, c)
		}
	}
	stop()
	reportGFLOPS(b, "GFLOP/s", 2*float64(m)*float64(n)*float64(k))
}

func BenchmarkMulThin_M1024N1024K10(b *testing.B)     { benchMulThin(b, true, 1024, 1024, 10) }
func BenchmarkMulThinGemm_M1024N1024K10(b *testing.B) { benchMulThin(b, false, 1024, 1024, 10) }
func BenchmarkMulThin_M1024N1024K20(b *testing.B)     { benchMulThin(b, true, 1024, 1024, 20) }
func BenchmarkMulThinGemm_M1024N1024K20(b *testing.B) { benchMulThin(b, false, 1024, 1024, 20) }
func BenchmarkMulThin_M10000N340K10(b *testing.B)     { benchMulThin(b, true, 10000, 340, 10) }
func BenchmarkMulThinGemm_M10000N340K10(b *testing.B) { benchMulThin(b, false, 10000, 340, 10) }
func BenchmarkMulThin_M300N300K7(b *testing.B)        { benchMulThin(b, true, 300, 300, 7) }
func BenchmarkMulThinGemm_M300N300K7(b *testing.B)    { benchMulThin(b, false, 300, 300, 7) }
