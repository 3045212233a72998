// Package data reads and writes the data of lrsdl: data sets, splits,
// synthetic data and trained models.
//
// # Data sets
//
// Load reads a classification data set from a MAT v5 file or a CSV file.
// Samples are the columns of Y (d×N), stored as a *mat.Dense or, when
// fewer than SparseDensity of the entries are non-zero, as a *sparse.CSC
// from github.com/james-bowman/sparse. Labels of any integer values are
// mapped to classes 0..C−1 (MapLabels) and Dataset.Classes maps them back
// (UnmapLabels). NormalizeColumns scales samples to unit ℓ2 norm, the
// convention of the paper.
//
// SplitPerClass draws a fixed number of training samples per class and
// StratifiedKFold makes cross-validation folds; both are deterministic for
// a seed (math/rand/v2's PCG). Synthetic generates the simulated data of
// the paper's shared-feature experiment together with its planted atoms.
//
// # MAT-files
//
// ReadMAT and OpenMAT parse MAT v5 files (as written by MATLAB's save with
// -v6 or -v7, Octave and SciPy): real numeric and logical 2-D arrays,
// plain or zlib-compressed, in either byte order. Cell, struct, object,
// char, sparse and complex arrays and arrays with more than two dimensions
// are listed but not converted; Level 4 and v7.3 (HDF5) files are
// rejected. WriteMAT writes dense double matrices that MATLAB, Octave and
// SciPy can open. The implementation follows MathWorks' published
// description of the MAT-file format.
//
// # Model files
//
// WriteModel and ReadModel store an lrsdl.State in a versioned binary
// format with a checksum (see EncodeModel). Writes are atomic: a file is
// written to a temporary name, synced and renamed, so that a crash never
// leaves a partial file.
//
// Readers of both formats bound their allocations by the size of their
// input and report malformed input as an error, never by panicking.
package data
