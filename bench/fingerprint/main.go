// Command fingerprint trains every registered method at its defaults on a
// fixed, seeded synthetic problem and prints, per method, a SHA-256 of the
// trained state (options, classes, every matrix bit for bit) and of the
// predicted labels. Two trees that print the same lines train the same
// models: it is the check that a refactoring moved code without changing a
// bit.
//
//	go run ./bench/fingerprint                 # pure-Go BLAS
//	go run -tags openblas ./bench/fingerprint  # OpenBLAS
package main

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"os"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/blas"
	"github.com/lrsdl/lrsdl/data"
	"github.com/lrsdl/lrsdl/methods"
)

func main() {
	fmt.Println("backend", blas.Setup())
	Y, labels := data.FaceLike(5, 60, 30, 1)
	T, _ := data.FaceLike(5, 60, 10, 2)
	failed := false
	for _, name := range methods.Names() {
		sum, err := fingerprint(name, Y, labels, T)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
			failed = true
			continue
		}
		fmt.Printf("%-9s %x\n", name, sum)
	}
	if failed {
		os.Exit(1)
	}
}

func fingerprint(name string, Y *mat.Dense, labels []int, T *mat.Dense) ([]byte, error) {
	c, err := methods.New(name)
	if err != nil {
		return nil, err
	}
	if err := c.Fit(context.Background(), Y, labels); err != nil {
		return nil, err
	}
	pred, err := c.Predict(T)
	if err != nil {
		return nil, err
	}
	p, ok := c.(lrsdl.Persistent)
	if !ok {
		return nil, fmt.Errorf("no state")
	}
	s, err := p.State()
	if err != nil {
		return nil, err
	}
	h := sha256.New()
	word := func(v uint64) { _ = binary.Write(h, binary.LittleEndian, v) }
	h.Write([]byte(s.Method))
	h.Write(s.Options)
	for _, v := range s.Classes {
		word(uint64(v))
	}
	for _, n := range s.Names {
		h.Write([]byte(n))
		m := s.Matrices[n]
		if m == nil {
			continue
		}
		r, cols := m.Dims()
		word(uint64(r))
		word(uint64(cols))
		for i := range r {
			for j := range cols {
				word(math.Float64bits(m.At(i, j)))
			}
		}
	}
	for _, v := range pred {
		word(uint64(v))
	}
	return h.Sum(nil), nil
}
