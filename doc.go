// Package lrsdl holds the contract of a library for discriminative
// dictionary learning: 13 methods, SRC, ODL, LC-KSVD1, LC-KSVD2, DLSI,
// COPAR, FDDL, D2L2R2, LRSDL (Vu & Monga, "Fast Low-rank Shared Dictionary
// Learning for Image Classification", IEEE TIP 2017), JDL, JDL* (JDL
// predicting by global coding), DLRD and SRRS.
//
// Samples are the columns of a d×N matrix Y. Every method is a Model: it is
// trained with Fit(ctx, Y, labels) and gives new samples labels (Predict),
// per-class scores (DecisionFunction), probabilities (PredictProba) and
// sparse codes (Transform). The methods and their model files (Save, Load)
// live in package methods; data files and splits in package data; the
// numerical building blocks in package core and the BLAS layer (backend
// choice and hand-written kernels) in package blas.
//
// Computation goes through gonum's blas64, gonum's pure-Go BLAS unless the
// program chooses otherwise: importing this library never changes it. A
// binary built with -tags openblas (cgo, libopenblas-dev) links OpenBLAS, and
// UseOpenBLAS makes blas64 take level-3 BLAS (Gemm, Syrk, …) from it through
// gonum's netlib, keeping gonum's levels 1 and 2, whose results do not depend
// on memory alignment (see OpenBLAS). Backend reports which is in use.
package lrsdl
