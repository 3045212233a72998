// Package lowrank holds the dense kernels of SRRS's low-rank steps: the
// smallest eigenpairs of a symmetric matrix (SymEigLow, SymEig), singular
// value thresholding through the Gram matrix (SVTGram), and a matrix–vector
// product split between two goroutines with the bits of one call.
package lowrank
