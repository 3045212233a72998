package stream

import (
	"context"
	"fmt"
	"io"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Chunk is a block of labelled samples.
type Chunk struct {
	Y      *mat.Dense // d×b, one sample per column
	Labels []int      // the b labels
	Name   string     // where the chunk comes from, for error messages
}

// Source returns labelled samples a chunk at a time. Next returns the next
// chunk, or io.EOF after the last one of a pass; Reset starts a new pass
// from the first chunk. A chunk's storage may be reused by the next call
// of Next. Sources are not safe for concurrent use.
type Source interface {
	Next(ctx context.Context) (Chunk, error)
	Reset() error
}

// Lener is implemented by sources that know how many samples one pass
// holds.
type Lener interface {
	Len() int64
}

// Check returns an error naming the chunk if its labels do not match its
// columns, if its dimension is not d (d > 0), or if it holds a NaN or an
// infinity.
func Check(c Chunk, d int) error {
	if c.Y == nil || c.Y.IsEmpty() {
		return fmt.Errorf("stream: chunk %s has no samples", c.Name)
	}
	r, n := c.Y.Dims()
	if d > 0 && r != d {
		return fmt.Errorf("stream: chunk %s has dimension %d, earlier chunks %d", c.Name, r, d)
	}
	if len(c.Labels) != n {
		return fmt.Errorf("stream: chunk %s has %d samples and %d labels", c.Name, n, len(c.Labels))
	}
	raw := c.Y.RawMatrix()
	for i := 0; i < r; i++ {
		for j, v := range raw.Data[i*raw.Stride : i*raw.Stride+n] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("stream: chunk %s holds %v in sample %d, feature %d", c.Name, v, j+1, i+1)
			}
		}
	}
	return nil
}

// Dense is a Source over the columns of a matrix in memory, Size columns
// per chunk (all of them when Size ≤ 0).
type Dense struct {
	Y      mat.Matrix
	Labels []int
	Size   int

	pos int
	buf mat.Dense
}

// Next returns the next Size columns of Y.
func (s *Dense) Next(ctx context.Context) (Chunk, error) {
	if err := ctx.Err(); err != nil {
		return Chunk{}, err
	}
	d, n := s.Y.Dims()
	if s.pos >= n {
		return Chunk{}, io.EOF
	}
	b := n - s.pos
	if s.Size > 0 {
		b = min(b, s.Size)
	}
	lo := s.pos
	s.pos += b
	s.buf.Reset()
	s.buf.ReuseAs(d, b)
	for i := 0; i < d; i++ {
		for j := 0; j < b; j++ {
			s.buf.Set(i, j, s.Y.At(i, lo+j))
		}
	}
	var labels []int
	if lo < len(s.Labels) {
		labels = s.Labels[lo:min(lo+b, len(s.Labels))]
	}
	return Chunk{Y: &s.buf, Labels: labels, Name: fmt.Sprintf("columns %d..%d", lo+1, lo+b)}, nil
}

// Reset starts again from the first column.
func (s *Dense) Reset() error { s.pos = 0; return nil }

// Len returns the number of columns of Y.
func (s *Dense) Len() int64 { _, n := s.Y.Dims(); return int64(n) }

// Normalized is a Source that scales every sample of S to unit ℓ2 norm
// (zero samples stay zero), as the paper's protocol prepares data.
type Normalized struct{ S Source }

// Next returns the next chunk of S with unit-norm columns; it modifies
// the chunk's storage in place.
func (n Normalized) Next(ctx context.Context) (Chunk, error) {
	c, err := n.S.Next(ctx)
	if err != nil {
		return c, err
	}
	raw := c.Y.RawMatrix()
	norm := make([]float64, raw.Cols)
	for i := 0; i < raw.Rows; i++ {
		for j, v := range raw.Data[i*raw.Stride : i*raw.Stride+raw.Cols] {
			norm[j] += v * v
		}
	}
	for j, s := range norm {
		if s > 0 {
			norm[j] = 1 / math.Sqrt(s)
		}
	}
	for i := 0; i < raw.Rows; i++ {
		row := raw.Data[i*raw.Stride : i*raw.Stride+raw.Cols]
		for j := range row {
			row[j] *= norm[j]
		}
	}
	return c, nil
}

// Reset resets S.
func (n Normalized) Reset() error { return n.S.Reset() }

// Len returns the length of S, or −1 if S does not report it.
func (n Normalized) Len() int64 {
	if l, ok := n.S.(Lener); ok {
		return l.Len()
	}
	return -1
}
