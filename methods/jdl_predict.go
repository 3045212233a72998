package methods

import (
	"context"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl/core"
	"github.com/lrsdl/lrsdl/methods/internal/dl"
)

// sharedDictPredict labels the columns of Y by the smallest residual
// ‖y − D_cx^c − D_0x^0‖² over classes c, D̄ = [D_1 … D_C D_0] (the last
// block of part). The codes x come from the lasso with weight lambda on
// D̄ (global) or on [D_c D_0] for each c (local).
func sharedDictPredict(ctx context.Context, D *mat.Dense, part core.Partition, cl *core.Classes, Y mat.Matrix, lambda float64, global bool) ([]int, error) {
	return localPredict(D, cl, Y, sharedDictCoding(ctx, part, lambda, global))
}

// sharedDictCoding is the coding of sharedDictPredict.
func sharedDictCoding(ctx context.Context, part core.Partition, lambda float64, global bool) func(c int, G, DtY *mat.Dense) (X, Gc, Bc *mat.Dense, err error) {
	var Xall *mat.Dense
	return func(c int, G, DtY *mat.Dense) (X, Gc, Bc *mat.Dense, err error) {
		K, n := DtY.Dims()
		if global && Xall == nil {
			Xall = mat.NewDense(K, n, nil)
			if err := core.LassoGram(ctx, Xall, G, DtY, lambda, core.LassoOptions{ADMM: true}); err != nil {
				return nil, nil, nil, err
			}
		}
		idx := dl.Rows(part, c)
		Gc, Bc = dl.Gather(G, idx, idx), dl.Gather(DtY, idx, nil)
		if Xall != nil {
			return dl.Gather(Xall, idx, nil), Gc, Bc, nil
		}
		X = mat.NewDense(len(idx), n, nil)
		return X, Gc, Bc, core.LassoGram(ctx, X, Gc, Bc, lambda, core.LassoOptions{ADMM: true})
	}
}

// decideRaw is DecisionFunction on samples as given.
func (m *JDL) decideRaw(Y mat.Matrix) (*mat.Dense, error) {
	if err := dl.Trained(m.D); err != nil {
		return nil, err
	}
	return localScores(m.D, m.classes, Y, sharedDictCoding(bg, m.part, m.res.Lambda, m.star))
}

// PredictProba returns softmax(DecisionFunction/T) per column.
func (m *JDL) PredictProba(Y mat.Matrix) (*mat.Dense, error) { return m.proba(m.DecisionFunction(Y)) }

// transformRaw is Transform on samples as given.
func (m *JDL) transformRaw(Y mat.Matrix) (*mat.Dense, error) {
	if err := dl.Trained(m.D); err != nil {
		return nil, err
	}
	return globalCodes(m.D, Y, m.res.Lambda, core.LassoOptions{ADMM: true})
}

// Classes returns the class labels in increasing order.
func (m *JDL) Classes() []int {
	if m.D == nil {
		return nil
	}
	return classesOf(m.classes)
}
