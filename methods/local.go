package methods

import (
	"fmt"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/core"
	"github.com/lrsdl/lrsdl/methods/internal/dl"
	"gonum.org/v1/gonum/mat"
)

// dictState decodes the state s of DLSI or COPAR (decodeState) into o and
// returns its classes, a copy of its dictionary "D" and the atom partition
// part(C) of the decoded options, which must cover D.
func dictState(s *lrsdl.State, method string, o interface{ spec() optSpec }, part func(C int) core.Partition) (*core.Classes, *mat.Dense, core.Partition, error) {
	cl, err := decodeState(s, method, o, "D")
	if err != nil {
		return nil, nil, nil, err
	}
	p := part(cl.Len())
	D := s.Matrices["D"]
	if _, K := D.Dims(); K != p.Len() {
		return nil, nil, nil, fmt.Errorf("methods: %s state has %d atoms, want %d", method, K, p.Len())
	}
	return cl, mat.DenseCopyOf(D), p, nil
}

// localPredict returns for each column y of Y the label of the class c with
// the smallest residual ‖y − D_I·x‖² (dl.BlockResiduals), where code gives
// the codes X of Y on the atoms I of class c, G_II and D_IᵀY from G = DᵀD
// and DtY = DᵀY.
func localPredict(D *mat.Dense, cl *core.Classes, Y mat.Matrix, code func(c int, G, DtY *mat.Dense) (X, Gc, Bc *mat.Dense, err error)) ([]int, error) {
	S, err := localScores(D, cl, Y, code)
	if err != nil {
		return nil, err
	}
	return argmaxLabels(S, cl), nil
}

// localScores returns the C×n scores −‖y − D_I·x‖² of localPredict.
func localScores(D *mat.Dense, cl *core.Classes, Y mat.Matrix, code func(c int, G, DtY *mat.Dense) (X, Gc, Bc *mat.Dense, err error)) (*mat.Dense, error) {
	d, _ := D.Dims()
	if err := dl.TestSet(Y, d); err != nil {
		return nil, err
	}
	_, n := Y.Dims()
	yy := dl.ColSqNorms(Y)
	var DtY, G mat.Dense
	core.MulTrans(&DtY, D, Y)
	G.Mul(D.T(), D)
	S := mat.NewDense(cl.Len(), n, nil)
	r := make([]float64, n)
	for c := 0; c < cl.Len(); c++ {
		X, Gc, Bc, err := code(c, &G, &DtY)
		if err != nil {
			return nil, err
		}
		dl.BlockResiduals(r, X, Gc, Bc, yy)
		for j, v := range r {
			S.Set(c, j, -v)
		}
	}
	return S, nil
}

// globalCodes returns the lasso codes (K×n) of the columns of Y on all of D
// at weight lambda.
func globalCodes(D *mat.Dense, Y mat.Matrix, lambda float64, o core.LassoOptions) (*mat.Dense, error) {
	d, K := D.Dims()
	if err := dl.TestSet(Y, d); err != nil {
		return nil, err
	}
	_, n := Y.Dims()
	var DtY, G mat.Dense
	core.MulTrans(&DtY, D, Y)
	G.Mul(D.T(), D)
	X := mat.NewDense(K, n, nil)
	return X, core.LassoGram(bg, X, &G, &DtY, lambda, o)
}
