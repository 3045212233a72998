// Package lrsdl is the front door of a library for discriminative dictionary
// learning: SRC, ODL, LC-KSVD1/2, DLSI, COPAR, FDDL, D2L2R2 and LRSDL
// (Vu & Monga, "Fast Low-rank Shared Dictionary Learning for Image
// Classification", IEEE TIP 2017).
//
// Samples are the columns of a d×N matrix Y. A classifier is trained with
// Fit(ctx, Y, labels) and labels new samples with Predict. The methods live in
// package methods; data files, splits and model files in package data; the
// numerical building blocks in packages core and blas.
//
// Computation goes through gonum's blas64. The default build uses gonum's
// pure-Go BLAS; building with -tags openblas (cgo, libopenblas-dev) takes
// level-3 BLAS (Gemm, Syrk, …) from OpenBLAS through gonum's netlib instead,
// keeping gonum's levels 1 and 2, whose results do not depend on memory
// alignment (see OpenBLAS). Backend reports which is in use.
package lrsdl
