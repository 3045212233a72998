// Package dl holds what the dictionary-learning models of package methods
// share: checks of the training and test data, the outer iteration loop,
// the memory limit, the learning of class dictionaries, the reduction of a
// training set to its span (Y = Q·Yr, ReduceSpan; Prepare checks a set and
// reduces it in one call, sharing the span between fits of the same data)
// and the engines' Settings.
package dl
