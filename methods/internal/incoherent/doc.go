// Package incoherent updates the dictionaries of DLSI and COPAR, whose
// dictionary step is, for each block D of atoms,
//
//	min_D ½tr(F·DᵀD) − tr(EᵀD) + η‖AᵀD‖²_F  s.t.  ‖d_i‖₂ ≤ 1,
//
// with A the atoms of the other blocks (the structured incoherence term),
// by ADMM with a Woodbury solve (Update, UpdateGram) or by column sweeps
// (the original algorithm). Gram keeps the dictionary's Gram matrix
// between blocks; Inverse keeps the inverse of the Woodbury matrix.
package incoherent
