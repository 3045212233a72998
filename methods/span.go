package methods

import (
	"context"

	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// spanOff disables reduceSpan; tests set it to compare against training on
// the full data.
var spanOff bool

// spanRatio is the least d/N for which reduceSpan reduces. The thin QR costs
// about 4dN² flops and expand 2dNK, roughly one d-sized training pass; the
// gain is a factor d/N on every pass, so near-square data is left alone.
const spanRatio = 1.2

// reduceSpan returns the thin QR factors Y = Q·Yr of the d×N matrix Y, with
// Q d×N orthonormal and Yr = QᵀY N×N upper triangular, or nil, nil when
// d ≤ spanRatio·N (reduction does not pay) or spanOff is set.
//
// A dictionary learned from columns of Y stays in span(Y) ⊆ range(Q): its
// updates only combine columns of Y and of the dictionary, and the costs
// depend on D only through DᵀD, DᵀY and column norms, which Q preserves
// (QᵀQ = I). So training on Yr gives D_r with D = Q·D_r (expand), at N
// instead of d rows. Householder QR keeps N columns even when Y is rank
// deficient, so range(Q) ⊇ span(Y) and nothing is lost. For a test sample y,
// ‖y − Dx‖² = ‖Qᵀy − D_r x‖² + ‖(I−QQᵀ)y‖², the last term the same for every
// class, so prediction with D on raw data gives the same labels.
//
// The factorisation runs on its own goroutine, so that a cancelled ctx
// returns ctx.Err() at once (LAPACK cannot be interrupted; the goroutine
// finishes and its result is dropped).
func reduceSpan(ctx context.Context, Y mat.Matrix) (Q, Yr *mat.Dense, err error) {
	d, n := Y.Dims()
	if spanOff || float64(d) <= spanRatio*float64(n) {
		return nil, nil, ctx.Err()
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	type qr struct{ Q, Yr *mat.Dense }
	done := make(chan qr, 1)
	go func() {
		q, r := thinQR(Y)
		done <- qr{q, r}
	}()
	select {
	case f := <-done:
		return f.Q, f.Yr, nil
	case <-ctx.Done():
		return nil, nil, ctx.Err()
	}
}

// thinQR returns Q (d×N, orthonormal columns) and the upper triangular
// Yr = QᵀY (N×N) of the d×N matrix Y, d ≥ N.
func thinQR(Y mat.Matrix) (Q, Yr *mat.Dense) {
	d, n := Y.Dims()
	Q = mat.DenseCopyOf(Y)
	a := Q.RawMatrix()
	tau := make([]float64, n)
	w := []float64{0}
	lapack64.Geqrf(a, tau, w, -1)
	lwork := max(int(w[0]), d)
	lapack64.Orgqr(a, tau, w, -1)
	work := make([]float64, max(lwork, int(w[0])))
	lapack64.Geqrf(a, tau, work, len(work))
	Yr = mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		copy(Yr.RawRowView(i)[i:], a.Data[i*a.Stride+i:i*a.Stride+n])
	}
	lapack64.Orgqr(a, tau, work, len(work))
	return Q, Yr
}

// expand returns Q·Dr, a dictionary learned on reduced data mapped back to
// the data space.
func expand(Q, Dr *mat.Dense) *mat.Dense {
	var D mat.Dense
	D.Mul(Q, Dr)
	return &D
}
