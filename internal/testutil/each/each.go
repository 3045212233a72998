// Package each runs a test once per BLAS implementation. It imports no
// package of lrsdl, so that package blas's own tests can use it as well as
// internal/testutil.
package each

import (
	"slices"
	"testing"

	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// Backend runs f as a subtest once per implementation of impls, in order
// of name, with blas64 switched to it, and restores blas64's implementation
// afterwards.
func Backend(t *testing.T, impls map[string]gblas.Float64, f func(t *testing.T)) {
	orig := blas64.Implementation()
	defer blas64.Use(orig)
	names := make([]string, 0, len(impls))
	for n := range impls {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		blas64.Use(impls[n])
		t.Run(n, f)
	}
}
