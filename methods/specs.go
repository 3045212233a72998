package methods

// The option declarations of each method. The owner of a method moves its
// declaration into the method's file when the method resolves its options
// through it.

func kOpt(k *int, def float64, doc string) opt {
	return opt{name: "k", doc: doc, i: k, def: def, defDoc: "min(" + fmtNum(def) + ", smallest class)",
		min: 1, perClass: true, dataDef: func(d dataInfo) float64 { return min(def, float64(d.minClass)) }}
}

func seedOpt(u *uint64) opt { return opt{name: "seed", doc: "seed of the random initialisation", u: u} }
