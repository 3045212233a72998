package methods

import (
	"fmt"
	"sort"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/core"
	"github.com/lrsdl/lrsdl/methods/internal/dl"
)

var registry = map[string]func() lrsdl.Model{}

// register makes a method available to New; method files call it from init.
func register(name string, f func() lrsdl.Model) { registry[strings.ToUpper(name)] = f }

// New returns an untrained model with default options by its name, as
// listed by Names and returned by its Name method. It also accepts the
// name in any case and with hyphens, e.g. "lrsdl", "LC-KSVD1", "jdl*".
func New(name string) (lrsdl.Model, error) {
	f, ok := registry[strings.ToUpper(strings.ReplaceAll(name, "-", ""))]
	if !ok {
		return nil, fmt.Errorf("methods: unknown method %q (have %s)", name, strings.Join(Names(), ", "))
	}
	return f(), nil
}

// Names returns the registered method names in sorted order: the values
// of the models' Name methods.
func Names() []string {
	var ns []string
	for n := range registry {
		ns = append(ns, n)
	}
	sort.Strings(ns)
	return ns
}

// Dictionary is implemented by the methods that learn dictionaries: Atoms
// returns the class dictionaries D (atoms as columns), the atoms of each
// class, and the shared dictionary D0 (nil without one). Before training
// all three are nil.
type Dictionary interface {
	Atoms() (D *mat.Dense, part core.Partition, D0 *mat.Dense)
}

// classTrainingSet validates the training set of a method (at least 2
// classes), resolves its options o against the data and returns the
// class-ordered samples, their grouping and the data sizes.
func classTrainingSet(method string, Y mat.Matrix, labels []int, o interface{ spec() optSpec }) (*mat.Dense, *core.Grouping, dl.Info, error) {
	Ys, g, err := dl.TrainingSet(Y, labels)
	if err != nil {
		return nil, nil, dl.Info{}, err
	}
	if C := g.Classes.Len(); C < 2 {
		return nil, nil, dl.Info{}, fmt.Errorf("methods: %s needs at least 2 classes, have %d", method, C)
	}
	info := dl.InfoOf(Ys, g)
	if err := o.spec().resolve(&info); err != nil {
		return nil, nil, dl.Info{}, err
	}
	return Ys, g, info, nil
}

// ErrNotTrained is returned by Predict, Cost, State and the other methods
// that need a trained model when Fit (or SetState) has not succeeded.
var ErrNotTrained = dl.ErrNotTrained

// SetMemoryLimit sets the memory, in bytes, that Fit may plan to use: a Fit
// whose sizes (samples, dimension, atoms) need more returns an error naming
// the option to lower instead of allocating. A limit ≤ 0 restores the
// default, half the physical memory. It returns the previous limit.
func SetMemoryLimit(bytes int64) int64 { return dl.SetMemoryLimit(bytes) }

// MemoryLimit returns the limit set by SetMemoryLimit.
func MemoryLimit() int64 { return dl.MemoryLimit() }
