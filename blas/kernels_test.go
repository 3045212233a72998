package blas

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// proxRef is ProxStep written element by element from its formula.
func proxRef(z, w, g []float64, rows, cols int, step float64, thr []float64, beta float64) (dz2, z2, rs float64) {
	for i := 0; i < rows; i++ {
		t := thr[0]
		if len(thr) == rows && rows > 1 {
			t = thr[i]
		}
		for j := 0; j < cols; j++ {
			k := i*cols + j
			v := w[k] - step*g[k]
			zn := math.Copysign(math.Max(math.Abs(v)-t, 0), v)
			if zn == 0 {
				zn = 0
			}
			d := zn - z[k]
			dz2 += d * d
			z2 += zn * zn
			rs += (w[k] - zn) * d
			w[k] = zn + beta*d
			z[k] = zn
		}
	}
	return dz2, z2, rs
}

func randSlice(rnd *rand.Rand, n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = 2*rnd.Float64() - 1
	}
	return s
}

func TestProxStep(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	for _, sh := range [][2]int{{0, 0}, {0, 5}, {1, 1}, {3, 7}, {1, 9000}, {40, 300}, {300, 200}} {
		rows, cols := sh[0], sh[1]
		for _, perRow := range []bool{false, true} {
			thr := []float64{0.3}
			if perRow && rows > 0 {
				thr = make([]float64, rows)
				for i := range thr {
					thr[i] = 0.5 * rnd.Float64()
				}
			}
			n := rows * cols
			z, w, g := randSlice(rnd, n), randSlice(rnd, n), randSlice(rnd, n)
			zr, wr := slices.Clone(z), slices.Clone(w)
			d, s, r := ProxStep(z, w, g, rows, cols, 0.7, thr, 0.4)
			dr, sr, rr := proxRef(zr, wr, g, rows, cols, 0.7, thr, 0.4)
			checkIdentical(t, "z", z, zr)
			checkIdentical(t, "w", w, wr)
			for _, c := range [][2]float64{{d, dr}, {s, sr}, {r, rr}} {
				if math.Abs(c[0]-c[1]) > 1e-12*max(1, math.Abs(c[1])) {
					t.Errorf("%d×%d perRow=%v: sums %v, %v, %v; want %v, %v, %v", rows, cols, perRow, d, s, r, dr, sr, rr)
				}
			}
		}
	}
}

func TestProxStepNaN(t *testing.T) {
	z, w, g := []float64{0, 0}, []float64{math.NaN(), 0.1}, []float64{0, 0}
	ProxStep(z, w, g, 1, 2, 1, []float64{1}, 0)
	if !math.IsNaN(z[0]) || z[1] != 0 {
		t.Errorf("z = %v, want [NaN 0]", z)
	}
}

func TestSoftThreshold(t *testing.T) {
	x := []float64{3, -3, 0.5, -0.5, 1, -1, 0, math.Inf(1), math.NaN()}
	SoftThreshold(x, 1)
	want := []float64{2, -2, 0, 0, 0, 0, 0, math.Inf(1)}
	for i, v := range want {
		if x[i] != v {
			t.Errorf("x[%d] = %v, want %v", i, x[i], v)
		}
	}
	if !math.IsNaN(x[8]) {
		t.Errorf("NaN became %v", x[8])
	}
}

func TestBlockMeans(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	for _, sh := range [][3]int{{1, 1, 1}, {4, 10, 3}, {5, 7, 7}, {2, 20, 6}} {
		rows, N, C := sh[0], sh[1], sh[2]
		x := randGeneral(rnd, rows, N, pad)
		p := randPartition(rnd, N, C)
		dst := randGeneral(rnd, rows, C, pad)
		BlockMeans(dst, x, p)
		want := blas64.General{Rows: rows, Cols: C, Stride: C, Data: make([]float64, rows*C)}
		for i := 0; i < rows; i++ {
			for c := 0; c < C; c++ {
				var s float64
				for j := p[c]; j < p[c+1]; j++ {
					s += at(x, i, j)
				}
				if p[c+1] > p[c] {
					want.Data[i*C+c] = s / float64(p[c+1]-p[c])
				}
			}
		}
		checkClose(t, "BlockMeans", dst, want, 1e-14)
	}
}

func TestDoubleDiagBlocks(t *testing.T) {
	rnd := rand.New(rand.NewPCG(5, 6))
	a := randGeneral(rnd, 6, 5, pad)
	orig := cloneGeneral(a)
	rp, cp := []int{0, 2, 2, 6}, []int{0, 1, 3, 5}
	DoubleDiagBlocks(a, rp, cp)
	for i := 0; i < 6; i++ {
		for j := 0; j < 5; j++ {
			f := 1.0
			for c := 0; c < 3; c++ {
				if rp[c] <= i && i < rp[c+1] && cp[c] <= j && j < cp[c+1] {
					f = 2
				}
			}
			if at(a, i, j) != f*at(orig, i, j) {
				t.Fatalf("a[%d,%d] = %v, want %v", i, j, at(a, i, j), f*at(orig, i, j))
			}
		}
	}
}

func TestMulM(t *testing.T) {
	backends(t, func(t *testing.T) {
		rnd := rand.New(rand.NewPCG(7, 8))
		for _, sh := range [][3]int{{1, 1, 1}, {1, 3, 1}, {5, 4, 2}, {12, 9, 4}, {40, 33, 7}, {70, 130, 10}} {
			K, N, C := sh[0], sh[1], sh[2]
			a, x := randGeneral(rnd, K, K, pad), randGeneral(rnd, K, N, pad)
			p := randPartition(rnd, K, C)
			dst := randGeneral(rnd, K, N, pad)
			MulM(dst, a, x, p)
			m := cloneGeneral(a)
			DoubleDiagBlocks(m, p, p)
			checkClose(t, "MulM", dst, naiveMul(m, x, false), 1e-13)
			gemm := randGeneral(rnd, K, N, pad)
			blas64.Gemm(gblas.NoTrans, gblas.NoTrans, 1, m, x, 0, gemm)
			checkIdentical(t, "MulM vs DoubleDiagBlocks+Gemm", dst.Data, gemm.Data)
		}
	})
}

func TestAtBAndSparseAtB(t *testing.T) {
	backends(t, func(t *testing.T) {
		rnd := rand.New(rand.NewPCG(9, 10))
		for _, sh := range [][3]int{{1, 1, 1}, {3, 1, 4}, {7, 5, 9}, {50, 30, 40}, {200, 68, 102}} {
			d, K, N := sh[0], sh[1], sh[2]
			for _, density := range []float64{0, 0.02, 0.3, 1} {
				a, b := randGeneral(rnd, d, K, pad), randGeneral(rnd, d, N, pad)
				sparsify(rnd, b, density)
				want := naiveMul(a, b, true)
				dense, csc, csr := randGeneral(rnd, K, N, pad), randGeneral(rnd, K, N, pad), randGeneral(rnd, K, N, pad)
				AtB(dense, a, b)
				SparseAtB(csc, a, toCSC(b))
				SparseAtBCSR(csr, a, toCSR(b))
				checkClose(t, "AtB", dense, want, 1e-13)
				checkClose(t, "SparseAtB", csc, want, 1e-13)
				checkIdentical(t, "SparseAtBCSR vs SparseAtB", csr.Data, csc.Data)
			}
		}
	})
}

func TestSparseWorkspaceMul(t *testing.T) {
	backends(t, func(t *testing.T) {
		rnd := rand.New(rand.NewPCG(11, 12))
		for _, sh := range [][3]int{{1, 1, 1}, {3, 4, 1}, {9, 6, 11}, {70, 50, 90}, {33, 200, 150}} {
			m, K, N := sh[0], sh[1], sh[2]
			ws := NewSparseWorkspace(K, N)
			for _, density := range []float64{0, 0.01, 0.5, 1} {
				a, x := randGeneral(rnd, m, K, pad), randGeneral(rnd, K, N, pad)
				sparsify(rnd, x, density)
				dst := randGeneral(rnd, m, N, pad)
				sp := ws.Mul(dst, a, x)
				if wantSp := NonZeros(x) <= int(DensityCrossover()*float64(K*N)); sp != wantSp {
					t.Errorf("%v: density %v took sparse=%v, want %v", sh, density, sp, wantSp)
				}
				checkClose(t, "SparseWorkspace.Mul", dst, naiveMul(a, x, false), 1e-13)
			}
		}
	})
}

// TestSparseRowsMul checks SparseRowsMul's choice of path, its product
// against the naive one on both, and its sparse path bit for bit against
// the formula summed in order, unfused, on one core and on four.
func TestSparseRowsMul(t *testing.T) {
	backends(t, func(t *testing.T) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
		rnd := rand.New(rand.NewPCG(19, 20))
		for _, sh := range [][3]int{{1, 1, 1}, {3, 4, 1}, {9, 6, 11}, {70, 50, 90}, {5, 3, 128}, {70, 50, 130}, {150, 200, 140}} {
			m, K, N := sh[0], sh[1], sh[2]
			for _, density := range []float64{0, 0.01, 0.5, 1} {
				a, b := randGeneral(rnd, m, K, pad), randGeneral(rnd, K, N, pad)
				sparsify(rnd, a, density)
				wantSp := N >= rowsMulMinCols && NonZeros(a) <= int(DensityCrossover()*float64(m*K))
				want := make([]float64, m*N)
				for i := 0; i < m; i++ {
					for j := 0; j < N; j++ {
						var s float64
						for k := 0; k < K; k++ {
							if v := a.Data[i*a.Stride+k]; v != 0 {
								s += float64(v * b.Data[k*b.Stride+j])
							}
						}
						want[i*N+j] = s
					}
				}
				for _, procs := range []int{1, 4} {
					runtime.GOMAXPROCS(procs)
					dst := randGeneral(rnd, m, N, pad)
					what := fmt.Sprintf("SparseRowsMul %v density %v GOMAXPROCS %d", sh, density, procs)
					if sp := SparseRowsMul(dst, a, b); sp != wantSp {
						t.Errorf("%s: sparse=%v, want %v", what, sp, wantSp)
					}
					checkClose(t, what, dst, naiveMul(a, b, false), 1e-13)
					if !wantSp {
						continue
					}
					for i := 0; i < m; i++ {
						checkIdentical(t, what, dst.Data[i*dst.Stride:i*dst.Stride+N], want[i*N:(i+1)*N])
					}
				}
			}
		}
	})
}

func TestNonZeros(t *testing.T) {
	x := blas64.General{Rows: 2, Cols: 2, Stride: 3, Data: []float64{0, 1, 7, math.NaN(), 0, 7}}
	if n := NonZeros(x); n != 2 {
		t.Errorf("NonZeros = %d, want 2", n)
	}
}

// TestGOMAXPROCSIndependent checks that the kernels split over cores give
// bit-identical results on one core and on several.
func TestGOMAXPROCSIndependent(t *testing.T) {
	rnd := rand.New(rand.NewPCG(13, 14))
	rows, cols := 300, 250
	z, w, g := randSlice(rnd, rows*cols), randSlice(rnd, rows*cols), randSlice(rnd, rows*cols)
	a, b := randGeneral(rnd, 400, 120, 0), randGeneral(rnd, 400, 300, 0)
	sparsify(rnd, b, 0.05)
	bcsc, bcsr := toCSC(b), toCSR(b)
	ax := randGeneral(rnd, 120, 400, 0)
	xs := cloneGeneral(b)
	sparsify(rnd, xs, 0.2) // 1 % dense
	ws := NewSparseWorkspace(400, 300)
	run := func() [][]float64 {
		zz, ww := slices.Clone(z), slices.Clone(w)
		d, s, r := ProxStep(zz, ww, g, rows, cols, 0.5, []float64{0.2}, 0.3)
		c1, c2, c3 := randGeneral(rnd, 120, 300, 0), randGeneral(rnd, 120, 300, 0), randGeneral(rnd, 120, 300, 0)
		SparseAtB(c1, a, bcsc)
		SparseAtBCSR(c2, a, bcsr)
		if !ws.Mul(c3, ax, xs) {
			t.Fatal("sparse path not taken")
		}
		return [][]float64{zz, ww, {d, s, r}, c1.Data, c2.Data, c3.Data}
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	runtime.GOMAXPROCS(1)
	one := run()
	runtime.GOMAXPROCS(4)
	four := run()
	for i := range one {
		checkIdentical(t, "GOMAXPROCS 1 vs 4", four[i], one[i])
	}
}

// TestAllocs checks that no kernel allocates once warm, on inputs large
// enough to be split over cores. Kernels built on Gemm may allocate only
// what the BLAS's own Gemm calls allocate (gonum's parallel Dgemm starts
// goroutines; OpenBLAS allocates nothing).
func TestAllocs(t *testing.T) {
	backends(t, func(t *testing.T) {
		rnd := rand.New(rand.NewPCG(15, 16))
		K, N, d := 120, 600, 200 // large enough for both cores
		z, w, g := randSlice(rnd, K*N), randSlice(rnd, K*N), randSlice(rnd, K*N)
		thr := []float64{0.1}
		a, x, dst := randGeneral(rnd, K, K, 0), randGeneral(rnd, K, N, 0), randGeneral(rnd, K, N, 0)
		p := []int{0, 30, 30, 90, K}
		means := randGeneral(rnd, K, 4, 0)
		D, Y := randGeneral(rnd, d, K, 0), randGeneral(rnd, d, N, 0)
		sparsify(rnd, Y, 0.05)
		ycsc, ycsr := toCSC(Y), toCSR(Y)
		xs := cloneGeneral(x)
		sparsify(rnd, xs, 0.01)
		ws := NewSparseWorkspace(K, N)
		at := randGeneral(rnd, K, K, 0) // K×K at 1 %: SparseRowsMul's sparse path, split over cores
		sparsify(rnd, at, 0.01)
		thinB, thinC, thinW := randGeneral(rnd, N, 16, 0), randGeneral(rnd, K, 16, 0), make([]float64, N*16)
		gemm := func(tA gblas.Transpose, a, b, c blas64.General, beta float64) {
			blas64.Gemm(tA, gblas.NoTrans, 1, a, b, beta, c)
		}
		for _, k := range []struct {
			name    string
			f, gemm func()
		}{
			{"ProxStep", func() { ProxStep(z, w, g, K, N, 0.1, thr, 0.5) }, nil},
			{"SoftThreshold", func() { SoftThreshold(z, 0.1) }, nil},
			{"BlockMeans", func() { BlockMeans(means, x, []int{0, 100, 100, 450, N}) }, nil},
			{"DoubleDiagBlocks", func() { DoubleDiagBlocks(a, p, p) }, nil},
			{"SparseAtB", func() { SparseAtB(dst, D, ycsc) }, nil},
			{"SparseAtBCSR", func() { SparseAtBCSR(dst, D, ycsr) }, nil},
			{"SparseMul", func() { ws.Mul(dst, a, xs) }, nil},
			{"SparseRowsMul", func() { SparseRowsMul(dst, at, x) }, nil},
			{"NonZeros", func() { NonZeros(x) }, nil},
			{"MulThin", func() { MulThin(thinC, x, thinB, thinW) }, nil},
			{"MulM", func() { MulM(dst, a, x, p) }, func() { gemm(gblas.NoTrans, a, x, dst, 0) }},
			{"AtB", func() { AtB(dst, D, Y) }, func() { gemm(gblas.Trans, D, Y, dst, 0) }},
			{"DenseMul", func() { ws.Mul(dst, a, x) }, func() { gemm(gblas.NoTrans, a, x, dst, 0) }},
		} {
			var allowed float64
			if k.gemm != nil {
				k.gemm()
				allowed = testing.AllocsPerRun(20, k.gemm)
			}
			k.f()
			if n := testing.AllocsPerRun(20, k.f); n > allowed {
				t.Errorf("%s: %v allocations per run, its Gemm calls alone make %v", k.name, n, allowed)
			}
		}
	})
}

// TestBackendParity checks that every kernel gives the same result on each
// linked BLAS, within 1e-10 relative.
func TestBackendParity(t *testing.T) {
	rnd := rand.New(rand.NewPCG(17, 18))
	K, N, d := 90, 150, 160
	a, x := randGeneral(rnd, K, K, pad), randGeneral(rnd, K, N, pad)
	p := []int{0, 20, 20, 55, K}
	D, Y := randGeneral(rnd, d, K, pad), randGeneral(rnd, d, N, pad)
	sparsify(rnd, Y, 0.1)
	xs := cloneGeneral(x)
	sparsify(rnd, xs, 0.02)
	results := map[string][]blas64.General{}
	backends(t, func(t *testing.T) {
		var out []blas64.General
		for _, f := range []func(dst blas64.General){
			func(dst blas64.General) { MulM(dst, a, x, p) },
			func(dst blas64.General) { AtB(dst, D, Y) },
			func(dst blas64.General) { SparseAtB(dst, D, toCSC(Y)) },
			func(dst blas64.General) { NewSparseWorkspace(K, N).Mul(dst, a, xs) },
			func(dst blas64.General) { NewSparseWorkspace(K, N).Mul(dst, a, x) },
		} {
			dst := randGeneral(rnd, K, N, pad)
			f(dst)
			out = append(out, dst)
		}
		results[t.Name()] = out
	})
	var first []blas64.General
	for name, r := range results {
		if first == nil {
			first = r
			continue
		}
		for i := range r {
			checkClose(t, name, r[i], first[i], 1e-10)
		}
	}
	if len(results) < 2 {
		t.Logf("only one BLAS linked; build with -tags openblas to compare backends")
	}
}

// TestEmpty checks that zero-sized operands are accepted and nothing is
// written.
func TestEmpty(t *testing.T) {
	backends(t, func(t *testing.T) {
		rnd := rand.New(rand.NewPCG(19, 20))
		for _, sh := range [][3]int{{0, 0, 0}, {0, 3, 2}, {3, 0, 2}, {2, 3, 0}} {
			m, K, N := sh[0], sh[1], sh[2]
			x := randGeneral(rnd, K, N, pad)
			sq := randGeneral(rnd, K, K, pad)
			dst := randGeneral(rnd, K, N, pad)
			MulM(dst, sq, x, []int{0, K})
			msq := cloneGeneral(sq)
			DoubleDiagBlocks(msq, []int{0, K}, []int{0, K})
			checkClose(t, "MulM", dst, naiveMul(msq, x, false), 1e-14)
			a := randGeneral(rnd, m, K, pad)
			b := randGeneral(rnd, m, N, pad)
			for _, f := range []func(blas64.General){
				func(d blas64.General) { AtB(d, a, b) },
				func(d blas64.General) { SparseAtB(d, a, toCSC(b)) },
				func(d blas64.General) { SparseAtBCSR(d, a, toCSR(b)) },
			} {
				d := randGeneral(rnd, K, N, pad)
				f(d)
				checkClose(t, "AtB", d, naiveMul(a, b, true), 1e-14)
			}
			am := randGeneral(rnd, m, K, pad)
			d := randGeneral(rnd, m, N, pad)
			NewSparseWorkspace(K, N).Mul(d, am, x)
			checkClose(t, "SparseWorkspace.Mul", d, naiveMul(am, x, false), 1e-14)
		}
	})
}

// TestShapePanics checks that mismatched shapes panic with the fixed
// messages of package gblas.
func TestShapePanics(t *testing.T) {
	g := func(r, c int) blas64.General {
		return blas64.General{Rows: r, Cols: c, Stride: max(c, 1), Data: make([]float64, r*max(c, 1))}
	}
	y := toCSC(g(4, 5))
	for name, c := range map[string]struct {
		f    func()
		want string
	}{
		"MulM dst":         {func() { MulM(g(3, 4), g(3, 3), g(3, 5), []int{0, 3}) }, errShape},
		"MulM partition":   {func() { MulM(g(3, 5), g(3, 3), g(3, 5), []int{0, 2}) }, errPart},
		"MulM decreasing":  {func() { MulM(g(3, 5), g(3, 3), g(3, 5), []int{0, 2, 1, 3}) }, errPart},
		"AtB":              {func() { AtB(g(2, 5), g(3, 2), g(4, 5)) }, errShape},
		"SparseAtB":        {func() { SparseAtB(g(2, 5), g(3, 2), y) }, errShape},
		"SparseAtBCSR":     {func() { SparseAtBCSR(g(2, 5), g(3, 2), toCSR(g(4, 5))) }, errShape},
		"Mul":              {func() { NewSparseWorkspace(3, 5).Mul(g(2, 5), g(2, 3), g(3, 4)) }, errShape},
		"SparseRowsMul":    {func() { SparseRowsMul(g(2, 5), g(2, 3), g(4, 5)) }, errShape},
		"BlockMeans":       {func() { BlockMeans(g(2, 2), g(2, 5), []int{0, 3, 4}) }, errPart},
		"AddCombination x": {func() { AddCombination(make([]float64, 5), 2, make([]float64, 2), 1, make([]float64, 9), 5) }, errShape},
		"AddCombination a": {func() { AddCombination(make([]float64, 5), 2, make([]float64, 2), 2, make([]float64, 10), 5) }, errShape},
		"ProxStep": {func() {
			ProxStep(make([]float64, 6), make([]float64, 6), make([]float64, 6), 2, 3, 1, []float64{1, 2, 3}, 0)
		}, errShape},
	} {
		func() {
			defer func() {
				if r := recover(); r != c.want {
					t.Errorf("%s: panic %v, want %q", name, r, c.want)
				}
			}()
			c.f()
		}()
	}
}

// TestProxStepVector checks that proxRange, with the vector kernel where
// the CPU has one, gives bit for bit the iterates and sums of the portable
// loop (proxScalar) over the whole range, with tails, odd offsets, signed
// zeros, infinities and NaNs.
func TestProxStepVector(t *testing.T) {
	if !hasVec {
		t.Skip("no vector kernel on this CPU or build")
	}
	rnd := rand.New(rand.NewPCG(5, 6))
	special := []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), 0.3, -0.3}
	for _, n := range []int{1, 4, 7, 21, 65, 12040, 18000} {
		for _, off := range []int{0, 1, 2, 3} {
			for _, spec := range []bool{false, true} {
				z, w, g := randSlice(rnd, n+off)[off:], randSlice(rnd, n+off)[off:], randSlice(rnd, n+off)[off:]
				for i := 0; spec && i < n; i += 5 { // specials make the sums NaN
					z[i] = special[rnd.IntN(len(special))]
					w[i] = special[rnd.IntN(len(special))]
				}
				th := 0.5 * rnd.Float64()
				zs, ws := slices.Clone(z), slices.Clone(w)
				var acc, accs [12]float64
				proxRange(z, w, g, 0.7, th, 0.4, &acc)
				proxScalar(zs, ws, g, 0.7, th, 0.4, &accs)
				for i := range z {
					if !sameBits(z[i], zs[i]) || !sameBits(w[i], ws[i]) {
						t.Fatalf("n=%d off=%d spec=%v element %d: vector z, w = %v, %v; portable %v, %v", n, off, spec, i, z[i], w[i], zs[i], ws[i])
					}
				}
				for i := range acc {
					if !sameBits(acc[i], accs[i]) {
						t.Errorf("n=%d off=%d spec=%v: vector sums %v; portable %v", n, off, spec, acc, accs)
						break
					}
				}
			}
		}
	}
}

// TestCountRowVector checks countRow, with the vector kernel where the CPU
// has one, against a count of the entries that are not zero, on every
// length up to 13, at offsets 0 to 2 into a slice that holds zeros of both
// signs, infinities and NaNs.
func TestCountRowVector(t *testing.T) {
	rnd := rand.New(rand.NewPCG(7, 8))
	special := []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), math.SmallestNonzeroFloat64, 0.3}
	row := make([]float64, 40)
	for i := range row {
		row[i] = special[rnd.IntN(len(special))]
	}
	for n := range 14 {
		for off := range 3 {
			r := row[off : off+n]
			cnt := make([]int, n)
			for i := range cnt {
				cnt[i] = rnd.IntN(5)
			}
			want := slices.Clone(cnt)
			wn := 0
			for i, v := range r {
				if v != 0 {
					want[i]++
					wn++
				}
			}
			if got := countRow(cnt, r); got != wn || !slices.Equal(cnt, want) {
				t.Errorf("n=%d off=%d: countRow %d, %v; want %d, %v", n, off, got, cnt, wn, want)
			}
		}
	}
}

func sameBits(a, b float64) bool {
	return math.Float64bits(a) == math.Float64bits(b) || (math.IsNaN(a) && math.IsNaN(b))
}

// TestSparseMulOrder checks the sparse path (addScaled4) bit for bit
// against its formula summed in order, unfused: the vector kernel where the
// CPU has one, the portable loop on the tails.
func TestSparseMulOrder(t *testing.T) {
	rnd := rand.New(rand.NewPCG(13, 14))
	for _, sh := range [][3]int{{1, 9, 3}, {7, 13, 5}, {33, 40, 21}} {
		m, K, N := sh[0], sh[1], sh[2]
		a, x := randGeneral(rnd, m, K, pad), randGeneral(rnd, K, N, pad)
		sparsify(rnd, x, 0.6)
		want := make([]float64, m*N)
		for i := 0; i < m; i++ {
			for j := 0; j < N; j++ {
				var s float64
				for k := 0; k < K; k++ {
					if v := x.Data[k*x.Stride+j]; v != 0 {
						s += float64(a.Data[i*a.Stride+k] * v)
					}
				}
				want[i*N+j] = s
			}
		}
		ws := NewSparseWorkspace(K, N)
		dst := randGeneral(rnd, m, N, pad)
		if !ws.compress(x, K*N) {
			t.Fatal("compress refused")
		}
		ws.mulCompressed(dst, ws.transposeA(a))
		for i := 0; i < m; i++ {
			checkIdentical(t, "sparse A·X row", dst.Data[i*dst.Stride:i*dst.Stride+N], want[i*N:(i+1)*N])
		}
	}
}

// TestAddCombination checks AddCombination bit for bit against its formula
// summed in order, unfused: the vector kernel where the CPU has one, the
// portable loop on the tails.
func TestAddCombination(t *testing.T) {
	rnd := rand.New(rand.NewPCG(15, 16))
	for _, c := range [][3]int{{0, 3, 1}, {5, 0, 1}, {1, 4, 1}, {7, 9, 3}, {13, 11, 2}, {40, 30, 1}} {
		m, n, inc := c[0], c[1], c[2]
		ldx := m + 3
		a, x := randSlice(rnd, max(n*inc, 1)), randSlice(rnd, n*ldx+m)
		for p := 0; p < n; p += 3 {
			a[p*inc] = 0
		}
		dst0 := randSlice(rnd, m)
		want := slices.Clone(dst0)
		for p := 0; p < n; p++ {
			if f := a[p*inc]; f != 0 {
				for i := range want {
					want[i] += float64(f * x[p*ldx+i])
				}
			}
		}
		dst := slices.Clone(dst0)
		AddCombination(dst, n, a, inc, x, ldx)
		checkIdentical(t, fmt.Sprintf("AddCombination %v", c), dst, want)
	}
}

// TestGemm checks Gemm against a triple loop for every transposition, on
// shapes split by rows, by columns and not at all, with padded strides
// (padding untouched), and that GOMAXPROCS=1 and 4 give the same bits.
func TestGemm(t *testing.T) {
	backends(t, func(t *testing.T) {
		rnd := rand.New(rand.NewPCG(15, 16))
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
		for _, sh := range [][3]int{{50, 700, 50}, {300, 40, 700}, {70, 90, 30}, {130, 65, 20}, {5, 6, 7}} {
			m, n, k := sh[0], sh[1], sh[2]
			for _, tA := range []gblas.Transpose{gblas.NoTrans, gblas.Trans} {
				for _, tB := range []gblas.Transpose{gblas.NoTrans, gblas.Trans} {
					a := randGeneral(rnd, m, k, pad)
					if tA == gblas.Trans {
						a = randGeneral(rnd, k, m, pad)
					}
					b := randGeneral(rnd, k, n, pad)
					if tB == gblas.Trans {
						b = randGeneral(rnd, n, k, pad)
					}
					c0 := randGeneral(rnd, m, n, pad)
					want := cloneGeneral(c0)
					for i := 0; i < m; i++ {
						for j := 0; j < n; j++ {
							var s float64
							for l := 0; l < k; l++ {
								var av, bv float64
								if tA == gblas.Trans {
									av = at(a, l, i)
								} else {
									av = at(a, i, l)
								}
								if tB == gblas.Trans {
									bv = at(b, j, l)
								} else {
									bv = at(b, l, j)
								}
								s += av * bv
							}
							want.Data[i*want.Stride+j] = 1.5*s + 0.5*at(c0, i, j)
						}
					}
					var got [2]blas64.General
					for p, procs := range []int{1, 4} {
						runtime.GOMAXPROCS(procs)
						got[p] = cloneGeneral(c0)
						Gemm(tA, tB, 1.5, a, b, 0.5, got[p])
					}
					checkClose(t, "Gemm", got[0], want, 1e-12)
					checkIdentical(t, "Gemm, GOMAXPROCS 1 vs 4", got[1].Data, got[0].Data)
				}
			}
		}
	})
}

// TestSparseWorkspaceMulT checks MulT against Mul of the transposed matrix
// formed explicitly, bit for bit, on the sparse and the dense path, on
// shapes large enough to be split between the cores, at GOMAXPROCS 1 and 4.
func TestSparseWorkspaceMulT(t *testing.T) {
	backends(t, func(t *testing.T) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
		rnd := rand.New(rand.NewPCG(17, 18))
		for _, sh := range [][3]int{{3, 5, 4}, {40, 70, 90}, {300, 1100, 1000}} {
			m, N, K := sh[0], sh[1], sh[2]
			for _, density := range []float64{0.01, 0.3} {
				a, b := randGeneral(rnd, m, N, pad), randGeneral(rnd, K, N, pad)
				sparsify(rnd, b, density)
				x := blas64.General{Rows: N, Cols: K, Stride: K, Data: make([]float64, N*K)}
				for k := 0; k < K; k++ {
					for j := 0; j < N; j++ {
						x.Data[j*K+k] = at(b, k, j)
					}
				}
				want := randGeneral(rnd, m, K, pad)
				wantSp := NewSparseWorkspace(N, K).Mul(want, a, x)
				for _, procs := range []int{1, 4} {
					runtime.GOMAXPROCS(procs)
					got := randGeneral(rnd, m, K, pad)
					if sp := NewSparseWorkspace(N, K).MulT(got, a, b); sp != wantSp {
						t.Errorf("%v density %v GOMAXPROCS %d: MulT sparse=%v, Mul %v", sh, density, procs, sp, wantSp)
					}
					for i := 0; i < m; i++ {
						checkIdentical(t, fmt.Sprintf("MulT %v density %v GOMAXPROCS %d", sh, density, procs),
							got.Data[i*got.Stride:i*got.Stride+K], want.Data[i*want.Stride:i*want.Stride+K])
					}
				}
			}
		}
	})
}

// TestSparseWorkspaceMulAT checks that MulAT with a given Aᵀ (padded
// rows) is Mul bit for bit on both paths, and that it reads at, not a, on
// the sparse one.
func TestSparseWorkspaceMulAT(t *testing.T) {
	backends(t, func(t *testing.T) {
		rnd := rand.New(rand.NewPCG(19, 20))
		for _, sh := range [][3]int{{1, 1, 1}, {9, 6, 11}, {70, 50, 90}} {
			m, K, N := sh[0], sh[1], sh[2]
			for _, density := range []float64{0.01, 0.5, 1} {
				a, x := randGeneral(rnd, m, K, pad), randGeneral(rnd, K, N, pad)
				sparsify(rnd, x, density)
				at := randGeneral(rnd, K, m, pad)
				for i := 0; i < m; i++ {
					for k := 0; k < K; k++ {
						at.Data[k*at.Stride+i] = a.Data[i*a.Stride+k]
					}
				}
				want, got := randGeneral(rnd, m, N, pad), randGeneral(rnd, m, N, pad)
				wantSp := NewSparseWorkspace(K, N).Mul(want, a, x)
				if sp := NewSparseWorkspace(K, N).MulAT(got, a, at, x); sp != wantSp {
					t.Fatalf("%v density %v: MulAT sparse=%v, Mul %v", sh, density, sp, wantSp)
				}
				for i := 0; i < m; i++ {
					checkIdentical(t, fmt.Sprintf("MulAT %v density %v", sh, density),
						got.Data[i*got.Stride:i*got.Stride+N], want.Data[i*want.Stride:i*want.Stride+N])
				}
				if !wantSp || NonZeros(blas64.General{Rows: 1, Cols: N, Stride: x.Stride, Data: x.Data}) == 0 {
					continue
				}
				// On the sparse path A[0,0] is read from at: changing it
				// changes row 0 where row 0 of X is not zero.
				at.Data[0] += 1
				NewSparseWorkspace(K, N).MulAT(got, a, at, x)
				if slices.Equal(got.Data[:N], want.Data[:N]) {
					t.Errorf("%v density %v: MulAT ignored at", sh, density)
				}
			}
		}
	})
}

// TestSparseWorkspaceLimit checks that Mul and MulT take the sparse path
// exactly when X has at most DensityCrossover()·K·N non-zeros, at the
// limit and one above it, on a matrix whose non-zeros are counted in
// chunks shared between the cores (repeated, for the early stop of the
// counting), and that the products are right either way.
func TestSparseWorkspaceLimit(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	rnd := rand.New(rand.NewPCG(19, 20))
	const m, K, N = 3, 1200, 1000
	limit := int(DensityCrossover() * float64(K) * float64(N))
	a := randGeneral(rnd, m, K, 0)
	for _, nnz := range []int{limit, limit + 1} {
		if nnz > K*N { // gonum's crossover: every X takes the sparse path
			continue
		}
		x := blas64.General{Rows: K, Cols: N, Stride: N, Data: make([]float64, K*N)}
		for _, p := range rnd.Perm(K * N)[:nnz] {
			x.Data[p] = rnd.NormFloat64()
		}
		xt := blas64.General{Rows: N, Cols: K, Stride: K, Data: make([]float64, K*N)}
		for k := 0; k < K; k++ {
			for j := 0; j < N; j++ {
				xt.Data[j*K+k] = at(x, k, j)
			}
		}
		want := naiveMul(a, x, false)
		ws, wst := NewSparseWorkspace(K, N), NewSparseWorkspace(K, N)
		for _, procs := range []int{1, 4} {
			runtime.GOMAXPROCS(procs)
			for range 5 {
				dst, dstT := randGeneral(rnd, m, N, 0), randGeneral(rnd, m, N, 0)
				if sp := ws.Mul(dst, a, x); sp != (nnz <= limit) {
					t.Errorf("%d non-zeros, limit %d, GOMAXPROCS %d: Mul sparse=%v", nnz, limit, procs, sp)
				}
				if sp := wst.MulT(dstT, a, xt); sp != (nnz <= limit) {
					t.Errorf("%d non-zeros, limit %d, GOMAXPROCS %d: MulT sparse=%v", nnz, limit, procs, sp)
				}
				checkClose(t, "Mul at the limit", dst, want, 1e-13)
				checkClose(t, "MulT at the limit", dstT, want, 1e-13)
			}
		}
	}
}

// TestGemmLarge checks Gemm on products of at least GemmThreadsMin
// multiply-adds, which the BLAS splits itself: the result is right and has
// the same bits at GOMAXPROCS 1 and 4 and with SetOpenBLASThreads 1 and 2.
func TestGemmLarge(t *testing.T) {
	backends(t, func(t *testing.T) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
		defer SetOpenBLASThreads(SetOpenBLASThreads(0))
		rnd := rand.New(rand.NewPCG(21, 22))
		for _, sh := range [][3]int{{77, 1234, 354}, {330, 330, 310}} {
			m, n, k := sh[0], sh[1], sh[2]
			if m*n*k < GemmThreadsMin {
				t.Fatalf("%v: below GemmThreadsMin", sh)
			}
			a, b := randGeneral(rnd, m, k, pad), randGeneral(rnd, k, n, pad)
			c0 := randGeneral(rnd, m, n, pad)
			want := naiveMul(a, b, false)
			var first []float64
			for _, c := range [][2]int{{1, 1}, {4, 1}, {4, 2}, {1, 2}} {
				runtime.GOMAXPROCS(c[0])
				SetOpenBLASThreads(c[1])
				got := cloneGeneral(c0)
				Gemm(gblas.NoTrans, gblas.NoTrans, 1, a, b, 0, got)
				checkClose(t, "Gemm above GemmThreadsMin", got, want, 1e-12)
				if first == nil {
					first = got.Data
				} else {
					checkIdentical(t, fmt.Sprintf("Gemm above GemmThreadsMin, GOMAXPROCS %d, SetOpenBLASThreads(%d)", c[0], c[1]), got.Data, first)
				}
			}
		}
	})
}
