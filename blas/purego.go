//go:build !openblas

package blas

import "gonum.org/v1/gonum/blas/gonum"

const openBLASLinked = false

// OpenBLAS is, in builds without -tags openblas, a stand-in that
// UseOpenBLAS never installs.
type OpenBLAS struct{ gonum.Implementation }

var openBLAS OpenBLAS

func backendDetail() string { return "gonum pure-Go BLAS" }

func openBLASCoreHint() string { return "" }

// GemmThreadsMin is, in builds without OpenBLAS, the size from which
// Gemm leaves a product whole, as in OpenBLAS builds.
const GemmThreadsMin = 1 << 25

// SetOpenBLASThreads does nothing in builds without OpenBLAS; it returns 1.
func SetOpenBLASThreads(int) int { return 1 }
