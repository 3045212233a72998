// Package data reads and writes the data of lrsdl: data sets, synthetic
// data and trained models.
//
// # Data sets
//
// Load reads a classification data set from a MAT v5 file (through package
// matfile) or a CSV file. Samples are the columns of Y (d×N), stored as a
// *mat.Dense or, when fewer than SparseDensity of the entries are
// non-zero, as a *sparse.CSC from github.com/james-bowman/sparse. The
// training and test sets are split.Set values; labels are kept as the file
// gives them, whatever integers they are. Dataset.Split draws a fixed
// number of training samples per class (package split holds the draws and
// the cross-validation folds).
//
// Normalisation is explicit: LoadOptions.Normalize (or NormalizeColumns)
// scales every sample to unit ℓ2 norm, which is the protocol of the paper
// for every data set; the library never does it unasked. Synthetic
// generates the simulated data of the paper's shared-feature experiment
// together with its planted atoms.
//
// # Model files
//
// WriteModel and ReadModel store an lrsdl.State in a versioned binary
// format with a checksum (see EncodeModel). Writes are atomic: a file is
// written to a temporary name, synced and renamed, so that a crash never
// leaves a partial file.
//
// Readers bound their allocations by the size of their input (MAT-files:
// see package matfile) and report malformed input as an error, never by
// panicking.
package data
