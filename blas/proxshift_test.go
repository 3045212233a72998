package blas

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestProxRangeShift checks ProxRangeShift against ProxStep on the
// gradient g + (o − b) formed beforehand: the same Z and W bit for bit, the
// same sums, and Σ W against a plain sum; and the portable loop
// (proxShiftScalar) over the whole range, which must agree with it bit for
// bit (so with the vector kernel where the CPU has one), also on specials.
func TestProxRangeShift(t *testing.T) {
	rnd := rand.New(rand.NewPCG(7, 8))
	special := []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), 0.3, -0.3}
	for _, n := range []int{0, 1, 3, 4, 7, 176, 301} {
		for _, off := range []int{0, 1} {
			for _, spec := range []bool{false, true} {
				z, w := randSlice(rnd, n+off)[off:], randSlice(rnd, n+off)[off:]
				g, b := randSlice(rnd, n+off)[off:], randSlice(rnd, n+off)[off:]
				for i := 0; spec && i < n; i += 3 {
					z[i] = special[rnd.IntN(len(special))]
					w[i] = special[rnd.IntN(len(special))]
				}
				o := 0.25
				gs := make([]float64, n)
				for i := range gs {
					gs[i] = g[i] + (o - b[i])
				}
				zr, wr := slices.Clone(z), slices.Clone(w)
				d0, s0, r0 := ProxStep(zr, wr, gs, 1, n, 0.7, []float64{0.3}, 0.4)
				var ref float64
				for _, v := range wr {
					ref += v
				}
				var got [2][]float64
				var sums [2][4]float64
				for i, vec := range []bool{true, false} {
					zc, wc := slices.Clone(z), slices.Clone(w)
					var p ProxSums
					var ws float64
					if vec {
						ws = ProxRangeShift(zc, wc, g, b, o, 0.7, 0.3, 0.4, &p)
					} else {
						var lanes [4]float64
						proxShiftScalar(zc, wc, g, b, o, 0.7, 0.3, 0.4, &p.acc, &lanes)
						ws = (lanes[0] + lanes[1]) + (lanes[2] + lanes[3])
					}
					d, s, r := p.Sums()
					sums[i] = [4]float64{d, s, r, ws}
					got[i] = append(zc, wc...)
					checkIdentical(t, "z", zc, zr)
					checkIdentical(t, "w", wc, wr)
					if !spec {
						for _, c := range [][2]float64{{d, d0}, {s, s0}, {r, r0}, {ws, ref}} {
							if math.Abs(c[0]-c[1]) > 1e-12*max(1, math.Abs(c[1])) {
								t.Errorf("n=%d vec=%v: sums %v, want %v, %v, %v, %v", n, vec, sums[i], d0, s0, r0, ref)
							}
						}
					}
				}
				for i := range got[0] {
					if !sameBits(got[0][i], got[1][i]) {
						t.Fatalf("n=%d off=%d: element %d ProxRangeShift %v, portable %v", n, off, i, got[0][i], got[1][i])
					}
				}
				for q := range 4 {
					if !sameBits(sums[0][q], sums[1][q]) {
						t.Errorf("n=%d off=%d: ProxRangeShift's sums %v, portable %v", n, off, sums[0], sums[1])
					}
				}
			}
		}
	}
}
