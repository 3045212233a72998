//go:build openblas && !cgo

package blas

// The openblas build links OpenBLAS through cgo. Building it with
// CGO_ENABLED=0 would silently give the pure-Go BLAS, so it fails here.
var _ = openblas_tag_requires_cgo_set_CGO_ENABLED_1
