// Package methods implements the classifiers of lrsdl: SRC, ODL, LC-KSVD1,
// LC-KSVD2, DLSI, COPAR, FDDL, D2L2R2 and LRSDL. Each is a type with an
// Options struct whose zero value means the paper's defaults, and methods
// Fit(ctx, Y, labels), Predict, Cost, State and SetState.
//
// Methods are backend-agnostic: they compute through packages core and blas.
package methods
