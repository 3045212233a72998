// Package blas holds the hand-written kernels of lrsdl: operations on raw
// row-major storage (gonum's blas64.General) that run in place on
// preallocated buffers and never allocate.
//
// The kernels call gonum's blas64 for the dense products, so they run on
// whichever BLAS the build links (see lrsdl.Backend). Programmer errors
// (mismatched shapes) panic with a fixed message.
package blas
