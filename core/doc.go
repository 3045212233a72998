// Package core holds the numerical building blocks shared by the methods of
// lrsdl: class partitions and the paper's M(·) operator, FISTA with
// Lipschitz estimation, batch lasso, the sparse coder certified by the
// duality gap (SparseCoder), the ODL dictionary update, ADMM with
// singular value thresholding, OMP and K-SVD.
//
// Matrices are gonum *mat.Dense. Samples are columns; a Partition maps a
// class to a contiguous range of columns (samples) or rows (atoms).
package core
