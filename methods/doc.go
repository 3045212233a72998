// Package methods implements the 13 classifiers of lrsdl, each an
// lrsdl.Model made by New(name) or as a struct literal:
//
//	SRC       sparse representation-based classification (no training)
//	ODL       online dictionary learning, one dictionary per class
//	LC-KSVD1  label-consistent K-SVD (type LCKSVD1)
//	LC-KSVD2  LC-KSVD1 with the linear classifier learned jointly (LCKSVD2)
//	DLSI      dictionary learning with structured incoherence
//	COPAR     class dictionaries and a shared one, with incoherence
//	FDDL      Fisher discrimination dictionary learning
//	D2L2R2    FDDL with a nuclear norm on each class dictionary
//	LRSDL     low-rank shared dictionary learning (Vu & Monga)
//	JDL       joint dictionary learning, class and shared dictionaries
//	JDL*      JDL predicting by global coding: New("JDL*"), type JDL
//	DLRD      discriminative low-rank dictionary learning, sparse errors
//	SRRS      supervised robust subspace: low-rank codes, a learned projection
//
// The contract (normalisation, errors, concurrency) is documented once, on
// lrsdl.Model; here each model's doc says what it minimises, and its
// DecisionFunction and Transform what its scores and codes are. An Options
// struct's zero value means the defaults; Off sets a literal 0. Calibrate
// fits the temperature of PredictProba. The derivations and algorithms are
// in methods/NOTES.md.
package methods
