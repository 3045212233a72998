// Package online trains LRSDL and FDDL (LRSDL with k0 = 0) by minibatches,
// so that the training set can be streamed from disk and never held in
// memory whole.
//
// Each minibatch Y_B of labelled samples goes through the three steps of
// the paper's Algorithm 2, with the full-data quantities replaced by
// running ones (Mairal et al., online dictionary learning):
//
//   - X step: the codes X̄_B = [X_B; X0_B] minimise LRSDL-X's objective on
//     the batch by FISTA, with the class means m_c, the mean m and the
//     shared mean m^0 of the codes kept as running statistics;
//   - D step: D = argmin −2tr(E·Dᵀ) + tr(F·DᵀD) (LRSDL-D) with E and F built
//     from the accumulated statistics A = Σ x xᵀ and B = Σ ȳ M(x)ᵀ;
//   - D0 step: D0 = argmin −2tr(E0·D0ᵀ) + tr(F0·D0ᵀD0) + η‖D0‖_* (LRSDL-D0,
//     ADMM with singular value thresholding) with E0 = Σ v x0ᵀ and
//     F0 = Σ x0 x0ᵀ, v = y − ½D·M(x).
//
// Before a batch adds its sums, every statistic is multiplied by the
// forgetting factor β_t = (1 − 1/t)^ρ (t the batch count), so that codes
// computed with early dictionaries fade. Memory is O(dK + K² + batch)
// whatever the number of samples.
//
// A trained Model exports a lrsdl.State that methods.LRSDL and
// methods.FDDL restore with SetState: prediction, model files and the
// command are those of the batch methods.
package online
