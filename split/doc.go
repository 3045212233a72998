// Package split holds a labelled set of samples and the seeded ways of
// dividing it: per-class draws of training and test samples, and
// stratified cross-validation folds, optionally keeping groups (such as
// the images of one person) together.
//
// A Set keeps the labels of its source, whatever integers they are;
// nothing here maps them to 0..C−1. Every draw takes a *rand.Rand, so one
// seed gives the same division every run; the package reads no files and
// is shared by data, eval, methods and the command.
package split
