package data

import (
	"fmt"
	"math/rand/v2"

	"github.com/lrsdl/lrsdl/split"
)

// streamSynthetic is the PCG stream of Synthetic, so that the same seed
// used for data and for splits gives independent draws.
const streamSynthetic = 0x73796e7468 // "synth"

// newRand returns the random source for a seed and a stream.
func newRand(seed, stream uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, stream))
}

// Split draws perClass training samples per class from d.Train with
// split.PerClass and split.Rand(seed), and makes them the training set. If
// d has no test set, the other samples become the test set; otherwise they
// are dropped and the test set is kept (the paper's protocol for pre-split
// data such as AR gender). It is an error if no sample is left for
// testing.
func (d *Dataset) Split(perClass int, seed uint64) error {
	tr, rest, err := split.PerClass(d.Train.Labels, perClass, 0, split.Rand(seed))
	if err != nil {
		return fmt.Errorf("%s: %w", d.Name, err)
	}
	if d.Test.Y == nil {
		if len(rest) == 0 {
			return fmt.Errorf("data: %s: %d samples per class leave none for testing", d.Name, perClass)
		}
		d.Test = split.Subset(d.Train, rest)
	}
	d.Train = split.Subset(d.Train, tr)
	return nil
}
