// Package fisher is the training and prediction engine of the Fisher
// family of package methods: FDDL, LRSDL and D2L2R2, which minimise
//
//	J̄(D̄, X̄) = ½f̄_Y(D̄, X̄) + λ1‖X̄‖₁ + λ2/2·ḡ(X̄) + η‖D0‖_* + αΣ_c‖D_c‖_*
//
// over D̄ = [D D0] and X̄ = [X; X0], and DLRD, whose steps it shares. Model
// holds a trained model and what Resume continues from; Params are its
// resolved parameters and dl.Settings choose between equivalent paths.
package fisher
