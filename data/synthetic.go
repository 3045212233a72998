package data

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl/split"
)

// SyntheticOptions control Synthetic. The zero value gives the paper's
// simulated experiment: 4 classes of 20×20-pixel images, 1000 per class.
type SyntheticOptions struct {
	Classes  int // number of classes; 0 means 4
	PerClass int // samples per class; 0 means 1000
	Size     int // side of the square images in pixels, at least 8; 0 means 20
	// SharedAtoms is the number of patterns shared by all classes; 0
	// means 2, a negative value means none. The first is a filled square
	// in the middle, the others are square frames around it, so their
	// number is limited by Size (at most 4 for 20×20 images).
	SharedAtoms int
	// ClassAtoms is the number of patterns of each class; 0 means 4.
	ClassAtoms int
	// Noise is the standard deviation of the Gaussian noise added to
	// every pixel; 0 means 0.1, a negative value means no noise.
	Noise float64
	Seed  uint64 // seed of the noise and of each sample's atoms and weights
}

// Patterns holds the planted atoms of a synthetic data set. An atom is an
// image of Size×Size pixels stored as a column of d = Size·Size values in
// column-major pixel order: pixel (row r, column c) is entry c·Size + r,
// as MATLAB's reshape(atom, Size, Size) expects. Every atom has unit ℓ2
// norm.
type Patterns struct {
	Size       int
	ClassAtoms int // atoms per class
	// Class holds the class atoms, d×(C·ClassAtoms): the atoms of class c
	// are columns c·ClassAtoms to (c+1)·ClassAtoms−1.
	Class *mat.Dense
	// Shared holds the shared atoms, d×SharedAtoms, or is nil.
	Shared *mat.Dense
}

// ClassBlock returns the atoms of class c, a view of Class.
func (p *Patterns) ClassBlock(c int) mat.Matrix {
	r, _ := p.Class.Dims()
	return p.Class.Slice(0, r, c*p.ClassAtoms, (c+1)*p.ClassAtoms)
}

func (o SyntheticOptions) withDefaults() SyntheticOptions {
	if o.Classes == 0 {
		o.Classes = 4
	}
	if o.PerClass == 0 {
		o.PerClass = 1000
	}
	if o.Size == 0 {
		o.Size = 20
	}
	switch {
	case o.SharedAtoms == 0:
		o.SharedAtoms = 2
	case o.SharedAtoms < 0:
		o.SharedAtoms = 0
	}
	if o.ClassAtoms == 0 {
		o.ClassAtoms = 4
	}
	switch {
	case o.Noise == 0:
		o.Noise = 0.1
	case o.Noise < 0:
		o.Noise = 0
	}
	return o
}

// Synthetic generates the simulated data of the paper's shared-feature
// experiment. Each class has its own patterns: ClassAtoms bars at an
// orientation of its own (class c at c·180°/Classes), at different offsets
// from the centre. All classes share the shared patterns (a square in the
// middle, then square frames around it). A sample of class c is
//
//	y = Σ_a w_a p_{c,a} + Σ_k v_k s_k + noise
//
// where each class pattern is used with probability ½ (at least one is),
// with weight w_a uniform in [0.3, 1]; every shared pattern is used with
// weight v_k uniform in [0.5, 1.5], so that the shared part is large; and
// the noise is Gaussian with standard deviation Noise. The patterns
// overlap, so that classification is possible but not trivial.
//
// The returned data set holds all samples in Train, sorted by class, and
// has no test set; Classes is 0..C−1. The output depends only on opts.
// SyntheticSplit makes the paper's split.
func Synthetic(opts SyntheticOptions) (*Dataset, *Patterns, error) {
	o := opts.withDefaults()
	switch {
	case o.Classes < 2:
		return nil, nil, fmt.Errorf("data: synthetic: %d classes, want at least 2", o.Classes)
	case o.PerClass < 1:
		return nil, nil, fmt.Errorf("data: synthetic: %d samples per class, want at least 1", o.PerClass)
	case o.Size < 8:
		return nil, nil, fmt.Errorf("data: synthetic: image size %d, want at least 8", o.Size)
	case o.ClassAtoms < 1:
		return nil, nil, fmt.Errorf("data: synthetic: %d atoms per class, want at least 1", o.ClassAtoms)
	case math.IsNaN(o.Noise) || math.IsInf(o.Noise, 0):
		return nil, nil, fmt.Errorf("data: synthetic: noise %v is not finite", o.Noise)
	case float64(o.Classes)*float64(o.PerClass+o.ClassAtoms)*float64(o.Size)*float64(o.Size) > 1<<31:
		return nil, nil, fmt.Errorf("data: synthetic: %d×%d samples and %d atoms per class of %d pixels are too many", o.Classes, o.PerClass, o.ClassAtoms, o.Size*o.Size)
	}
	s := o.Size
	d := s * s
	// Ring of the shared patterns: the filled square has rings 0..r0,
	// frame k is ring r0+2k.
	r0 := s / 10
	if maxRing := (s - 1) / 2; r0+2*(o.SharedAtoms-1) > maxRing {
		return nil, nil, fmt.Errorf("data: synthetic: %d shared atoms do not fit in %d×%d images (at most %d)",
			o.SharedAtoms, s, s, (maxRing-r0)/2+1)
	}
	p := &Patterns{Size: s, ClassAtoms: o.ClassAtoms, Class: mat.NewDense(d, o.Classes*o.ClassAtoms, nil)}
	if o.SharedAtoms > 0 {
		p.Shared = mat.NewDense(d, o.SharedAtoms, nil)
	}
	centre := float64(s-1) / 2
	spacing := 0.7 * float64(s) / float64(o.ClassAtoms) // between parallel bars
	for col := 0; col < s; col++ {
		for row := 0; row < s; row++ {
			px := col*s + row
			x, y := float64(col)-centre, float64(row)-centre
			ring := int(math.Max(math.Abs(x), math.Abs(y)))
			for k := 0; k < o.SharedAtoms; k++ {
				if k == 0 && ring <= r0 || k > 0 && ring == r0+2*k {
					p.Shared.Set(px, k, 1)
				}
			}
			for c := 0; c < o.Classes; c++ {
				theta := math.Pi * float64(c) / float64(o.Classes)
				cos, sin := math.Cos(theta), math.Sin(theta)
				along, across := x*cos+y*sin, -x*sin+y*cos
				for a := 0; a < o.ClassAtoms; a++ {
					offset := (float64(a) - float64(o.ClassAtoms-1)/2) * spacing
					if math.Abs(across-offset) <= 1 && math.Abs(along) <= 0.4*float64(s) {
						p.Class.Set(px, c*o.ClassAtoms+a, 1)
					}
				}
			}
		}
	}
	for _, m := range []*mat.Dense{p.Class, p.Shared} {
		if m == nil {
			continue
		}
		_, k := m.Dims()
		for j := 0; j < k; j++ {
			if mat.Norm(m.ColView(j), 2) == 0 {
				return nil, nil, fmt.Errorf("data: synthetic: pattern %d is empty for %d×%d images", j, s, s)
			}
		}
		NormalizeDense(m)
	}

	rng := newRand(o.Seed, streamSynthetic)
	n := o.Classes * o.PerClass
	Y := mat.NewDense(d, n, nil)
	labels := make([]int, n)
	col := make([]float64, d)
	use := make([]bool, o.ClassAtoms)
	for c := 0; c < o.Classes; c++ {
		for i := 0; i < o.PerClass; i++ {
			j := c*o.PerClass + i
			labels[j] = c
			for k := range col {
				col[k] = o.Noise * rng.NormFloat64()
			}
			some := false
			for a := range use {
				use[a] = rng.IntN(2) == 0
				some = some || use[a]
			}
			if !some {
				use[rng.IntN(o.ClassAtoms)] = true
			}
			for a, u := range use {
				if u {
					addScaled(col, 0.3+0.7*rng.Float64(), p.Class, c*o.ClassAtoms+a)
				}
			}
			for k := 0; k < o.SharedAtoms; k++ {
				addScaled(col, 0.5+rng.Float64(), p.Shared, k)
			}
			Y.SetCol(j, col)
		}
	}
	classes := make([]int, o.Classes)
	for c := range classes {
		classes[c] = c
	}
	return &Dataset{Name: "synthetic", Train: split.Set{Y: Y, Labels: labels}, Classes: classes}, p, nil
}

// addScaled adds w times column j of m to dst.
func addScaled(dst []float64, w float64, m *mat.Dense, j int) {
	for i := range dst {
		dst[i] += w * m.At(i, j)
	}
}

// SyntheticSplit generates a synthetic data set as Synthetic does and
// splits it with Dataset.Split, seeded with opts.Seed: trainPerClass
// samples of each class for training (0 means the paper's 200), the rest
// for testing (800 per class with the default 1000).
func SyntheticSplit(opts SyntheticOptions, trainPerClass int) (*Dataset, *Patterns, error) {
	if trainPerClass == 0 {
		trainPerClass = 200
	}
	ds, p, err := Synthetic(opts)
	if err != nil {
		return nil, nil, err
	}
	if err := ds.Split(trainPerClass, opts.Seed); err != nil {
		return nil, nil, err
	}
	return ds, p, nil
}

// FaceLike returns n unit-norm samples of each of C classes in d dimensions:
// y = B_c·a + B_0·a0 + 0.1·e with Gaussian class bases B_c (d×4), a shared
// basis B_0 (d×2) and Gaussian a, a0, e. Like random-face features (random
// Gaussian projections of face images), classes are low-dimensional
// subspaces of a random embedding sharing common directions. The efficiency
// experiments and benchmarks use it; the labels are 0..C−1.
func FaceLike(C, d, n int, seed uint64) (*mat.Dense, []int) {
	rng := rand.New(rand.NewPCG(seed, 7))
	gauss := func(r, c int) *mat.Dense {
		m := mat.NewDense(r, c, nil)
		for i := range r {
			for j := range c {
				m.Set(i, j, rng.NormFloat64())
			}
		}
		return m
	}
	B0 := gauss(d, 2)
	Y := mat.NewDense(d, C*n, nil)
	labels := make([]int, C*n)
	var y, t mat.VecDense
	for c := range C {
		Bc := gauss(d, 4)
		for j := range n {
			y.MulVec(Bc, gauss(4, 1).ColView(0))
			t.MulVec(B0, gauss(2, 1).ColView(0))
			y.AddVec(&y, &t)
			y.AddScaledVec(&y, 0.1, gauss(d, 1).ColView(0))
			y.ScaleVec(1/mat.Norm(&y, 2), &y)
			Y.SetCol(c*n+j, y.RawVector().Data)
			labels[c*n+j] = c
		}
	}
	return Y, labels
}
