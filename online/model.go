package online

import (
	"fmt"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl/core"
)

// Model is a minibatch-trained LRSDL or FDDL model. The zero value is not
// usable; call New.
type Model struct {
	opts Options // as given to New
	res  Options // resolved
	p    params
	st   state
	w    work
}

// state is everything training continues from.
type state struct {
	d      int
	labels []int          // labels of the trained classes, increasing
	part   core.Partition // atoms of each trained class
	D, D0  mat.Dense      // d×K class atoms, d×k0 shared atoms
	A, B   mat.Dense      // Σ x xᵀ (K×K), Σ ȳ M(x)ᵀ (d×K)
	A0, B0 mat.Dense      // Σ x0 x0ᵀ (k0×k0), Σ v x0ᵀ (d×k0)
	S      mat.Dense      // K×C: column c is Σ x over the samples of class c
	n      []float64      // samples of each class (weighted)
	s0     []float64      // Σ x0 (k0)
	n0     float64        // samples (weighted)
	t      int64          // minibatches trained
	seen   int64          // samples trained on
	pend   map[int][][]float64
}

// New returns an untrained model with options o, which are checked and
// resolved (Model.Resolved) but not modified.
func New(o Options) (*Model, error) {
	res, p, err := o.resolve()
	if err != nil {
		return nil, err
	}
	return &Model{opts: o, res: res, p: p}, nil
}

// Options returns the options given to New.
func (m *Model) Options() Options { return m.opts }

// Resolved returns the options in use: those given to New (or restored by
// SetState) with every default filled in.
func (m *Model) Resolved() Options { return m.res }

// Seen returns the number of samples trained on so far and the number of
// minibatches they formed.
func (m *Model) Seen() (samples, batches int64) { return m.st.seen, m.st.t }

// Classes returns the labels of the trained classes in increasing order.
func (m *Model) Classes() []int { return slices.Clone(m.st.labels) }

// Pending returns the labels seen with fewer than k samples so far, in
// increasing order: their samples are kept until k of them can initialise
// the class's atoms.
func (m *Model) Pending() []int {
	ls := make([]int, 0, len(m.st.pend))
	for l := range m.st.pend {
		ls = append(ls, l)
	}
	slices.Sort(ls)
	return ls
}

// classOf returns the index of a trained class, or −1.
func (s *state) classOf(label int) int {
	i, ok := slices.BinarySearch(s.labels, label)
	if !ok {
		return -1
	}
	return i
}

// K returns the number of class atoms.
func (s *state) K() int {
	if len(s.part) == 0 {
		return 0
	}
	return s.part.Len()
}

func cloneDense(dst, src *mat.Dense) {
	dst.Reset()
	if !src.IsEmpty() {
		dst.CloneFrom(src)
	}
}

// clone returns a deep copy of s.
func (s *state) clone() state {
	c := state{d: s.d, labels: slices.Clone(s.labels), part: slices.Clone(s.part),
		n: slices.Clone(s.n), s0: slices.Clone(s.s0), n0: s.n0, t: s.t, seen: s.seen}
	for _, p := range [][2]*mat.Dense{{&c.D, &s.D}, {&c.D0, &s.D0}, {&c.A, &s.A}, {&c.B, &s.B}, {&c.A0, &s.A0}, {&c.B0, &s.B0}, {&c.S, &s.S}} {
		cloneDense(p[0], p[1])
	}
	if s.pend != nil {
		c.pend = make(map[int][][]float64, len(s.pend))
		for l, cols := range s.pend {
			cc := make([][]float64, len(cols))
			for i, col := range cols {
				cc[i] = slices.Clone(col)
			}
			c.pend[l] = cc
		}
	}
	return c
}

// addClasses inserts the classes labels (not trained yet, increasing) with
// their atoms Ds[i] (d×k) and the sums of their initial codes on them
// (sums[i], k) counted as counts[i] samples. The statistics of the new
// atoms start at zero.
func (s *state) addClasses(labels []int, Ds []*mat.Dense, sums [][]float64, counts []float64, k int) {
	oldK, oldC := s.K(), len(s.labels)
	all := slices.Clone(s.labels)
	all = append(all, labels...)
	slices.Sort(all)
	C := len(all)
	K := C * k
	part := make(core.Partition, C+1)
	for c := range C {
		part[c+1] = part[c] + k
	}
	// atom maps old atom i to its new index, class maps old class c.
	atom := make([]int, oldK)
	class := make([]int, oldC)
	for c, l := range s.labels {
		nc, _ := slices.BinarySearch(all, l)
		class[c] = nc
		for i := s.part[c]; i < s.part[c+1]; i++ {
			atom[i] = part[nc] + i - s.part[c]
		}
	}
	d := s.d
	var D, B, A, S mat.Dense
	D.ReuseAs(d, K)
	B.ReuseAs(d, K)
	A.ReuseAs(K, K)
	S.ReuseAs(K, C)
	n := make([]float64, C)
	for i := 0; i < oldK; i++ {
		for r := 0; r < d; r++ {
			D.Set(r, atom[i], s.D.At(r, i))
			B.Set(r, atom[i], s.B.At(r, i))
		}
		for j := 0; j < oldK; j++ {
			A.Set(atom[i], atom[j], s.A.At(i, j))
		}
		for c := 0; c < oldC; c++ {
			S.Set(atom[i], class[c], s.S.At(i, c))
		}
	}
	for c := 0; c < oldC; c++ {
		n[class[c]] = s.n[c]
	}
	for i, l := range labels {
		nc, _ := slices.BinarySearch(all, l)
		lo := part[nc]
		D.Slice(0, d, lo, lo+k).(*mat.Dense).Copy(Ds[i])
		for a, v := range sums[i] {
			S.Set(lo+a, nc, v)
		}
		n[nc] = counts[i]
	}
	s.labels, s.part, s.n = all, part, n
	s.D, s.B, s.A, s.S = D, B, A, S
}

// means returns the running class means of the codes (columns of Mc,
// K×C), their mean m (K) and the shared mean m0 (k0).
func (s *state) means(Mc *mat.Dense, m, m0 []float64) {
	K, C := s.K(), len(s.labels)
	var tot float64
	for i := range m {
		m[i] = 0
	}
	for c := 0; c < C; c++ {
		tot += s.n[c]
		inv := 0.0
		if s.n[c] > 0 {
			inv = 1 / s.n[c]
		}
		for i := 0; i < K; i++ {
			v := s.S.At(i, c)
			Mc.Set(i, c, v*inv)
			m[i] += v
		}
	}
	if tot > 0 {
		for i := range m {
			m[i] /= tot
		}
	}
	for i := range m0 {
		m0[i] = 0
		if s.n0 > 0 {
			m0[i] = s.s0[i] / s.n0
		}
	}
}

// checkLabels returns an error naming what if labels do not match n samples.
func checkLabels(what string, n int, labels []int) error {
	if len(labels) != n {
		return fmt.Errorf("online: %s has %d samples and %d labels", what, n, len(labels))
	}
	return nil
}
