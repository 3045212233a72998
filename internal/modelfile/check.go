package modelfile

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
)

// Matrices of a model by what they hold: dictionaries, whose atoms
// training keeps within the unit ball, and the other learned matrices
// (class means of codes, linear maps, projections), which training on
// unit-norm samples keeps far below maxLearned. Partitions and labels
// are checked by the methods.
var (
	dictionaries = []string{"D", "Dbar"}
	learned      = []string{"Mc", "m0", "A", "W", "P", "F"}
)

// maxLearned bounds the entries of the learned matrices of a model trained
// on unit-norm samples: far above what training gives, far below what
// breaks the arithmetic of prediction.
const maxLearned = 1e8

// checkScale returns an error if a dictionary of s is all zero or, for a
// model trained on unit-norm samples (normalized), if a matrix of s holds
// values that such training does not produce: a corrupt model that would
// otherwise predict one class for everything.
func checkScale(s *lrsdl.State, normalized bool) error {
	for _, name := range dictionaries {
		m, ok := s.Matrices[name]
		if !ok {
			continue
		}
		if mat.Norm(m, 1) == 0 {
			return fmt.Errorf("model: dictionary %q is all zero: the model is corrupt", name)
		}
		if !normalized {
			continue
		}
		_, c := m.Dims()
		for j := range c {
			if n := mat.Norm(m.ColView(j), 2); n > 1+1e-6 {
				return fmt.Errorf("model: atom %d of dictionary %q has norm %.3g, above the 1 that training on unit-norm samples gives: the model is corrupt", j+1, name, n)
			}
		}
	}
	if !normalized {
		return nil
	}
	for _, name := range learned {
		m, ok := s.Matrices[name]
		if !ok {
			continue
		}
		r, c := m.Dims()
		for i := range r {
			for j := range c {
				if v := m.At(i, j); math.Abs(v) > maxLearned {
					return fmt.Errorf("model: matrix %q holds %.3g at row %d, column %d, beyond the %g that training on unit-norm samples gives: the model is corrupt", name, v, i+1, j+1, float64(maxLearned))
				}
			}
		}
	}
	return nil
}

// KnownOptions returns an error naming the options of s that the method
// of p, restored from s, does not write back: options it does not know.
func KnownOptions(s *lrsdl.State, p lrsdl.Persistent) error {
	var in, out map[string]json.RawMessage
	if len(s.Options) == 0 || json.Unmarshal(s.Options, &in) != nil {
		return nil // not an object: the method's own concern
	}
	back, err := p.State()
	if err != nil || json.Unmarshal(back.Options, &out) != nil {
		return nil
	}
	var unknown, known []string
	for k := range in {
		if _, ok := out[k]; !ok {
			unknown = append(unknown, fmt.Sprintf("%q", k))
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	for k := range out {
		known = append(known, k)
	}
	sort.Strings(unknown)
	sort.Strings(known)
	return fmt.Errorf("model: unknown options %s of method %s (have %s)", strings.Join(unknown, ", "), s.Method, strings.Join(known, ", "))
}
