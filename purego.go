//go:build !openblas

package lrsdl

import "github.com/lrsdl/lrsdl/blas"

// UseOpenBLAS makes gonum's blas64, and so every method, compute with
// OpenBLAS. This binary was built without -tags openblas: it returns
// blas.UseOpenBLAS's error and leaves the BLAS as it is (gonum's pure Go).
func UseOpenBLAS() error { return blas.UseOpenBLAS() }
