// Package eval evaluates classifiers: accuracy and confusion matrices,
// seeded random splits per class, and stratified K-fold cross-validation of
// method options over a grid, on training data only.
package eval
