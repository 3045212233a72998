//go:build !openblas

package lrsdl

import "errors"

// UseOpenBLAS makes gonum's blas64, and so every method, compute with
// OpenBLAS. This binary was built without -tags openblas: it returns an
// error and leaves the BLAS as it is (gonum's pure Go).
func UseOpenBLAS() error {
	return errors.New("lrsdl: OpenBLAS is not linked: build with -tags openblas (cgo and libopenblas-dev)")
}
