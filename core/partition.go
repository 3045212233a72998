package core

import (
	"errors"
	"fmt"
	"sort"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl/blas"
)

// Partition splits 0..n into contiguous blocks: block c is [p[c], p[c+1]).
// A valid Partition has at least two entries, p[0] = 0 and is non-decreasing.
type Partition []int

// NewPartition returns the partition with the given block sizes.
func NewPartition(sizes ...int) Partition {
	p := make(Partition, len(sizes)+1)
	for i, s := range sizes {
		p[i+1] = p[i] + s
	}
	return p
}

// valid reports whether p has at least two entries, starts at 0 and is
// non-decreasing.
func (p Partition) valid() bool {
	if len(p) < 2 || p[0] != 0 {
		return false
	}
	for c := 1; c < len(p); c++ {
		if p[c] < p[c-1] {
			return false
		}
	}
	return true
}

// Blocks returns the number of blocks.
func (p Partition) Blocks() int { return len(p) - 1 }

// Len returns the total size p[C].
func (p Partition) Len() int { return p[len(p)-1] }

// Block returns the range [lo, hi) of block c.
func (p Partition) Block(c int) (lo, hi int) { return p[c], p[c+1] }

// Size returns the size of block c.
func (p Partition) Size(c int) int { return p[c+1] - p[c] }

// Of returns the block holding index i, or -1.
func (p Partition) Of(i int) int {
	c := sort.SearchInts(p, i+1) - 1
	if c < 0 || c >= p.Blocks() || i < 0 {
		return -1
	}
	return c
}

// Classes maps user labels to class indices 0..C−1 in increasing label order.
type Classes struct {
	Labels []int       // Labels[c] is the user label of class c, increasing
	index  map[int]int // user label → class
}

// NewClasses returns the classes found in labels.
func NewClasses(labels []int) *Classes {
	seen := map[int]bool{}
	var ls []int
	for _, l := range labels {
		if !seen[l] {
			seen[l] = true
			ls = append(ls, l)
		}
	}
	sort.Ints(ls)
	return ClassesOf(ls)
}

// ClassesOf returns the classes with the given increasing user labels.
func ClassesOf(labels []int) *Classes {
	c := &Classes{Labels: append([]int(nil), labels...), index: make(map[int]int, len(labels))}
	for i, l := range labels {
		c.index[l] = i
	}
	return c
}

// Len returns the number of classes.
func (c *Classes) Len() int { return len(c.Labels) }

// Index returns the class of a user label, and whether it is known.
func (c *Classes) Index(label int) (int, bool) {
	i, ok := c.index[label]
	return i, ok
}

// Grouping orders samples by class.
type Grouping struct {
	Classes *Classes
	Perm    []int     // Perm[j] is the original index of the j-th sample in class order
	Part    Partition // columns of each class after reordering
	Class   []int     // Class[j] is the class of original sample j
}

// ErrNoSamples is returned when there are no samples to group.
var ErrNoSamples = errors.New("core: no samples")

// GroupByClass orders samples by class, stably. Samples may come in any order.
func GroupByClass(labels []int) (*Grouping, error) {
	if len(labels) == 0 {
		return nil, ErrNoSamples
	}
	cl := NewClasses(labels)
	return groupWith(cl, labels)
}

// GroupWith is GroupByClass with a fixed set of classes; every class must
// have at least one sample and every label must be known.
func GroupWith(cl *Classes, labels []int) (*Grouping, error) {
	if len(labels) == 0 {
		return nil, ErrNoSamples
	}
	return groupWith(cl, labels)
}

func groupWith(cl *Classes, labels []int) (*Grouping, error) {
	C := cl.Len()
	sizes := make([]int, C)
	class := make([]int, len(labels))
	for j, l := range labels {
		c, ok := cl.Index(l)
		if !ok {
			return nil, fmt.Errorf("core: unknown label %d at sample %d", l, j)
		}
		class[j] = c
		sizes[c]++
	}
	for c, s := range sizes {
		if s == 0 {
			return nil, fmt.Errorf("core: class %d (label %d) has no samples", c, cl.Labels[c])
		}
	}
	p := NewPartition(sizes...)
	next := append([]int(nil), p[:C]...)
	perm := make([]int, len(labels))
	for j, c := range class {
		perm[next[c]] = j
		next[c]++
	}
	return &Grouping{Classes: cl, Perm: perm, Part: p, Class: class}, nil
}

// MOp sets dst = M(A), the paper's operator that doubles the diagonal
// blocks of A:
//
//	M(A) = A + blkdiag(A₁₁, …, A_CC),
//
// where block (c, c) is rows rows[c]..rows[c+1] and columns
// cols[c]..cols[c+1]. dst may be a; an empty dst is resized.
func MOp(dst, a *mat.Dense, rows, cols Partition) {
	r, c := a.Dims()
	if !rows.valid() || !cols.valid() || rows.Blocks() != cols.Blocks() || rows.Len() != r || cols.Len() != c {
		panic("core: MOp partitions do not match the matrix")
	}
	if dst != a {
		if dst.IsEmpty() {
			dst.ReuseAs(r, c)
		}
		dst.Copy(a)
	}
	blas.DoubleDiagBlocks(dst.RawMatrix(), rows, cols)
}
