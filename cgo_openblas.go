//go:build openblas && cgo

package lrsdl

import "github.com/lrsdl/lrsdl/blas"

// UseOpenBLAS makes gonum's blas64, and so every method, compute with
// OpenBLAS: level 3 from OpenBLAS, levels 1 and 2 from gonum (blas.OpenBLAS).
// Importing the library never changes the BLAS a program uses; a program
// that wants OpenBLAS calls this once at start-up.
func UseOpenBLAS() error { return blas.UseOpenBLAS() }
