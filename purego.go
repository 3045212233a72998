//go:build !openblas

package lrsdl

// backend is gonum's pure-Go BLAS, the portable default.
const backend = "gonum"
