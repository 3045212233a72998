// Package matfile reads and writes MATLAB MAT-files of version 5 (as
// written by MATLAB's save with -v6 or -v7, Octave and SciPy).
//
// Open and Read parse real numeric and logical 2-D arrays, plain or
// zlib-compressed, in either byte order; File converts a variable on
// demand to a *mat.Dense (Dense), a *sparse.CSC (CSC) or integers (Ints).
// Cell, struct, object, char, sparse and complex arrays and arrays with
// more than two dimensions are listed by Vars but not converted; Level 4
// and v7.3 (HDF5) files are rejected. Write and Encode write dense double
// matrices that MATLAB, Octave and SciPy can open. The implementation
// follows MathWorks' published description of the format.
//
// The reader bounds its memory by the size of its input plus the
// decompressed size of the compressed variables, which is checked before
// inflating: no more than a numeric variable's dimensions need, and no
// more than Options.MaxInflated for the whole file (DefaultMaxInflated,
// 1 GiB, by default), so that a small file that inflates to gigabytes is
// an error, not an allocation. Malformed input is an error, never a panic.
// Errors start with "matfile:".
package matfile
