package stream

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// FaceLike is a Source of N synthetic samples in D dimensions from C
// classes, modelled as data.FaceLike: a sample of class c is
//
//	y = B_c·a + B_0·a0 + 0.1·e,  scaled to unit norm,
//
// with Gaussian class bases B_c (D×4), a shared basis B_0 (D×2) and
// Gaussian a, a0, e. The bases are drawn from Seed; chunk i (Chunk
// samples, the last one fewer) is drawn from (SampleSeed, i) alone, with
// labels uniform over the classes, so any chunk can be generated without
// the others and no more than one chunk is held. Two sources with the same
// Seed and different SampleSeeds are a training and a test set of the same
// classes.
type FaceLike struct {
	C, D       int
	N          int64
	Chunk      int // samples per chunk; zero means DefaultChunk
	Seed       uint64
	SampleSeed uint64

	bases []float64 // C+1 blocks of D×4 (the last, D×2, is B_0), row-major
	next  int64
	y     mat.Dense
	label []int
}

func (s *FaceLike) init() error {
	if s.C < 1 || s.D < 1 || s.N < 0 {
		return fmt.Errorf("stream: FaceLike needs C, D ≥ 1 and N ≥ 0, have %d, %d, %d", s.C, s.D, s.N)
	}
	if s.bases != nil {
		return nil
	}
	rng := rand.New(rand.NewPCG(s.Seed, 0x66616365))
	s.bases = make([]float64, (s.C+1)*s.D*4)
	for i := range s.bases {
		s.bases[i] = rng.NormFloat64()
	}
	return nil
}

// Next generates the next chunk.
func (s *FaceLike) Next(ctx context.Context) (Chunk, error) {
	if err := ctx.Err(); err != nil {
		return Chunk{}, err
	}
	if err := s.init(); err != nil {
		return Chunk{}, err
	}
	size := int64(s.Chunk)
	if size <= 0 {
		size = DefaultChunk
	}
	lo := s.next * size
	if lo >= s.N {
		return Chunk{}, io.EOF
	}
	b := int(min(size, s.N-lo))
	rng := rand.New(rand.NewPCG(s.SampleSeed, uint64(s.next)))
	s.next++
	if r, c := s.y.Dims(); r != s.D || c != b {
		s.y.Reset()
		s.y.ReuseAs(s.D, b)
	}
	s.label = s.label[:0]
	col := make([]float64, s.D)
	var a [6]float64
	raw := s.y.RawMatrix()
	for j := 0; j < b; j++ {
		c := rng.IntN(s.C)
		s.label = append(s.label, c)
		for i := range a {
			a[i] = rng.NormFloat64()
		}
		Bc := s.bases[c*s.D*4 : (c+1)*s.D*4]
		B0 := s.bases[s.C*s.D*4:]
		var nrm float64
		for i := range col {
			v := Bc[4*i]*a[0] + Bc[4*i+1]*a[1] + Bc[4*i+2]*a[2] + Bc[4*i+3]*a[3] +
				B0[4*i]*a[4] + B0[4*i+1]*a[5] + 0.1*rng.NormFloat64()
			col[i] = v
			nrm += v * v
		}
		nrm = 1 / math.Sqrt(nrm)
		for i, v := range col {
			raw.Data[i*raw.Stride+j] = v * nrm
		}
	}
	return Chunk{Y: &s.y, Labels: s.label, Name: fmt.Sprintf("synthetic chunk %d", s.next)}, nil
}

// Reset starts again from the first chunk, which is generated anew.
func (s *FaceLike) Reset() error { s.next = 0; return nil }

// Len returns N.
func (s *FaceLike) Len() int64 { return s.N }
