package dl

import (
	"fmt"

	"github.com/lrsdl/lrsdl/core"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// ColSqNorms returns ‖y_j‖² for every column of Y (dense or sparse).
func ColSqNorms(Y mat.Matrix) []float64 {
	d, n := Y.Dims()
	out := make([]float64, n)
	if nz, ok := Y.(mat.NonZeroDoer); ok {
		if _, dense := Y.(*mat.Dense); !dense {
			nz.DoNonZero(func(_, j int, v float64) { out[j] += v * v })
			return out
		}
	}
	col := make([]float64, d)
	for j := range out {
		mat.Col(col, j, Y)
		out[j] = floats.Dot(col, col)
	}
	return out
}

// BlockResiduals sets r[j] = ‖y_j − D_I·x_j‖² = ‖y_j‖² − 2x_jᵀb_j + x_jᵀG_II x_j
// for the codes X (|I|×n) on the atoms rows of a Gram matrix G, with
// B = D_Iᵀ·Y (|I|×n) and yy[j] = ‖y_j‖².
func BlockResiduals(r []float64, X, G, B *mat.Dense, yy []float64) {
	var gx mat.Dense
	gx.Mul(G, X)
	_, n := X.Dims()
	for j := 0; j < n; j++ {
		x := X.ColView(j)
		r[j] = yy[j] - 2*mat.Dot(x, B.ColView(j)) + mat.Dot(x, gx.ColView(j))
	}
}

// CopyPart returns a copy of p.
func CopyPart(p core.Partition) core.Partition { return append(core.Partition(nil), p...) }

// Rows returns the atom indices of class block c and the shared block.
func Rows(part core.Partition, c int) []int {
	C := part.Blocks() - 1
	var idx []int
	for _, b := range []int{c, C} {
		lo, hi := part.Block(b)
		for i := lo; i < hi; i++ {
			idx = append(idx, i)
		}
	}
	return idx
}

// Gather returns the submatrix of a with the given rows and columns
// (all columns if cols is nil).
func Gather(a *mat.Dense, rows, cols []int) *mat.Dense {
	if cols == nil {
		_, n := a.Dims()
		out := mat.NewDense(len(rows), n, nil)
		for i, r := range rows {
			out.SetRow(i, a.RawRowView(r))
		}
		return out
	}
	out := mat.NewDense(len(rows), len(cols), nil)
	for i, r := range rows {
		for j, c := range cols {
			out.Set(i, j, a.At(r, c))
		}
	}
	return out
}

// ClassSquares appends ‖Y_c‖² for each class c of sp to dst.
func ClassSquares(dst []float64, Y *mat.Dense, sp core.Partition) []float64 {
	d, _ := Y.Dims()
	y := Y.RawMatrix()
	for c := 0; c < sp.Blocks(); c++ {
		s0, s1 := sp.Block(c)
		var s float64
		for i := 0; i < d; i++ {
			for _, v := range y.Data[i*y.Stride+s0 : i*y.Stride+s1] {
				s += v * v
			}
		}
		dst = append(dst, s)
	}
	return dst
}

// SortedSet validates labelled samples against a trained model with classes
// cl and dictionary D, and returns them sorted by class with the sample
// partition. Every class needs at least one sample.
func SortedSet(Y mat.Matrix, labels []int, cl *core.Classes, D *mat.Dense) (*mat.Dense, core.Partition, error) {
	d, _ := D.Dims()
	if err := TestSet(Y, d); err != nil {
		return nil, nil, err
	}
	if _, n := Y.Dims(); n != len(labels) {
		return nil, nil, fmt.Errorf("methods: %d labels for %d samples (columns of Y)", len(labels), n)
	}
	g, err := core.GroupWith(cl, labels)
	if err != nil {
		return nil, nil, err
	}
	return PermuteColumns(Y, g.Perm), g.Part, nil
}
