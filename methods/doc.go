// Package methods implements the classifiers of lrsdl: SRC, ODL, LC-KSVD1,
// LC-KSVD2, DLSI, COPAR, FDDL, D2L2R2, LRSDL, JDL, JDL*, DLRD and SRRS.
// Each is an lrsdl.Model: a type with an Options struct whose zero value
// means the paper's defaults (Fit never changes it), and the methods Fit,
// Predict, DecisionFunction, PredictProba, Transform, Classes, Params,
// SetParam, State and SetState. Every model scales its input samples to
// unit ℓ2 norm unless Options.NoNormalize; Calibrate fits the temperature
// of PredictProba.
//
// A model's file states its formulation and options; the training engines
// sit behind it in internal packages: the Fisher engine of FDDL, LRSDL,
// D2L2R2 and DLRD, the incoherent dictionary step of DLSI and COPAR, and
// the plumbing every model shares (data checks, the outer loop, the memory
// limit, the reduction to the span of the training set). They compute
// through packages core and blas, whatever the backend.
package methods
