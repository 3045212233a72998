// Package data reads and writes the data of lrsdl: data sets and synthetic
// data. Trained models are saved and loaded by package methods (Save, Load,
// SaveFile, LoadFile).
//
// # Data sets
//
// Load reads a classification data set from a MAT v5 file (through package
// matfile), a NumPy .npz archive or .npy array (through
// github.com/sbinet/npyio) or a CSV file. It recognises common layouts by
// their names (Y_train/Y_test, X_train/X_test, tr_dat/tt_dat with
// trls/ttls, fea with gnd, …), prefers the label vector whose values look
// like class ids, records its choices in Dataset.Notes, and reports an
// ambiguous or missing variable as an *OptionError naming the LoadOptions
// field that resolves it. LoadOptions.NoLabels loads samples without
// labels, for prediction. Samples are the columns of Y (d×N), stored as a
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
// Readers bound their allocations by the size of their input (MAT-files:
// see package matfile) and report malformed input as an error, never by
// panicking.
package data
