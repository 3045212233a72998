package blas

// ProxSums accumulates the sums ProxStep returns over calls of
// ProxRangeShift; its zero value is empty.
type ProxSums struct{ acc [12]float64 }

// Sums returns ‖zₙ − Z‖², ‖zₙ‖² and ⟨W_old − zₙ, zₙ − Z⟩ over the ranges
// added so far.
func (p *ProxSums) Sums() (dz2, z2, restart float64) {
	var s [3]float64
	for q := range s {
		a := p.acc[4*q : 4*q+4]
		s[q] = (a[0] + a[1]) + (a[2] + a[3])
	}
	return s[0], s[1], s[2]
}

// ProxRangeShift performs ProxStep's step on one range of len(z) elements
// with threshold t and the gradient g + (o − b), g and b left unchanged:
//
//	zₙ = S_t(W − step·(G + (o − B)))
//	W  = zₙ + beta·(zₙ − Z)
//	Z  = zₙ
//
// It adds ProxStep's sums to p and returns Σ W over the range (the new W).
// It runs on the calling goroutine and allocates nothing.
func ProxRangeShift(z, w, g, b []float64, o, step, t, beta float64, p *ProxSums) (wsum float64) {
	n := len(z)
	if len(w) < n || len(g) < n || len(b) < n {
		panic(errShape)
	}
	w, g, b = w[:n], g[:n], b[:n]
	var ws [4]float64
	k := 0
	if hasVec && n >= 4 {
		k = n &^ 3
		proxShiftVec(&z[0], &w[0], &g[0], &b[0], k, o, step, t, beta, &p.acc, &ws)
	}
	proxShiftScalar(z[k:], w[k:], g[k:], b[k:], o, step, t, beta, &p.acc, &ws)
	return (ws[0] + ws[1]) + (ws[2] + ws[3])
}

// proxShiftScalar is the portable ProxRangeShift; z, w, g and b start at a
// multiple of 4 from the start of the range. As in proxScalar, the float64
// conversions keep the compiler from fusing multiply-adds.
func proxShiftScalar(z, w, g, b []float64, o, step, t, beta float64, acc *[12]float64, ws *[4]float64) {
	w, g, b = w[:len(z)], g[:len(z)], b[:len(z)]
	for k, zo := range z {
		l := k & 3
		wv := w[k]
		v := wv - float64(step*(g[k]+(o-b[k])))
		zn := v - max(-t, min(t, v))
		d := zn - zo
		acc[l] += float64(d * d)
		acc[4+l] += float64(zn * zn)
		acc[8+l] += float64((wv - zn) * d)
		wn := zn + float64(beta*d)
		ws[l] += wn
		w[k] = wn
		z[k] = zn
	}
}
