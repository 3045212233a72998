//go:build !openblas

package lrsdl

import "gonum.org/v1/gonum/blas"

// backend is gonum's pure-Go BLAS, the portable default.
const backend = "gonum"

func addImplementations(map[string]blas.Float64) {}

func backendDetail() string { return "gonum pure-Go BLAS" }

func openBLASCoreHint() string { return "" }
