// Package report draws the figures of lrsdl with gonum/plot (dictionary
// atoms as image grids, cost against time, accuracy curves) and gives the
// complexity formulas of the paper's Tables 1 and 2.
package report
