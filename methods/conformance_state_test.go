package methods

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
)

func TestConformanceMemoryGuard(t *testing.T) {
	Y, labels := confData(9, confPerClass)
	prev := SetMemoryLimit(64)
	defer SetMemoryLimit(prev)
	forEachMethod(t, func(t *testing.T, name string) {
		m := newConf(t, name)
		var err error
		noPanic(t, "Fit", func() { err = m.Fit(context.Background(), Y, labels) })
		if err == nil || !strings.Contains(err.Error(), "memory") {
			t.Fatalf("Fit under a 64-byte memory limit: %v, want an error about memory", err)
		}
		if hasParam(m, "k") && !strings.Contains(err.Error(), "lower k") {
			t.Errorf("memory error %q does not name k", err)
		}
	})
}

// confStates trains every method once on the tiny data, for the fuzzer.
var confStates = sync.OnceValue(func() map[string]*lrsdl.State {
	Y, labels := confData(10, confPerClass)
	out := map[string]*lrsdl.State{}
	for _, name := range Names() {
		m, err := confNew(name)
		if errors.Is(err, errNotConforming) {
			continue
		}
		if err != nil {
			panic(err)
		}
		if err := m.Fit(context.Background(), Y, labels); err != nil {
			panic(fmt.Sprintf("%s: %v", name, err))
		}
		s, err := m.State()
		if err != nil {
			panic(err)
		}
		out[name] = s
	}
	return out
})

// FuzzSetState feeds corrupted model states to SetState: options JSON,
// non-finite or huge matrix entries, matrices of the wrong size, class
// labels. SetState must return an error or give a model that predicts
// training labels; it must never panic.
func FuzzSetState(f *testing.F) {
	names := Names()
	for i := range names {
		f.Add(uint8(i), []byte(nil), 0.0, uint8(0), uint8(0), int8(0))
		f.Add(uint8(i), []byte(`{"k":1e300,"iters":-7}`), math.NaN(), uint8(1), uint8(0), int8(0))
		f.Add(uint8(i), []byte(`{"lambda":"x"}`), 1e300, uint8(2), uint8(1), int8(1))
		f.Add(uint8(i), []byte(`{"k":2,"k0":-1,"eta":-1}`), math.Inf(1), uint8(0), uint8(2), int8(-1))
		f.Add(uint8(i), []byte(`{"k0":100000,"sparsity":99}`), -1e300, uint8(3), uint8(3), int8(2))
	}
	Yt, _ := confData(11, 2)
	f.Fuzz(func(t *testing.T, which uint8, opts []byte, atom float64, matrix, shape uint8, classes int8) {
		name := names[int(which)%len(names)]
		orig := confStates()[name]
		if orig == nil {
			t.Skipf("%s %v", name, errNotConforming)
		}
		s := &lrsdl.State{Method: orig.Method, Options: orig.Options, Classes: slices.Clone(orig.Classes),
			Names: slices.Clone(orig.Names), Matrices: map[string]*mat.Dense{}}
		for n, m := range orig.Matrices {
			s.Matrices[n] = mat.DenseCopyOf(m)
		}
		if opts != nil {
			s.Options = opts
		}
		if len(s.Names) > 0 {
			n := s.Names[int(matrix)%len(s.Names)]
			M := s.Matrices[n]
			r, c := M.Dims()
			M.Set(int(matrix)%r, int(shape)%c, M.At(int(matrix)%r, int(shape)%c)+atom)
			switch shape % 4 {
			case 1:
				s.Matrices[n] = mat.DenseCopyOf(M.Slice(0, r, 0, max(c-1, 1)))
			case 2:
				s.Matrices[n] = mat.DenseCopyOf(M.Slice(0, max(r-1, 1), 0, c))
			case 3:
				delete(s.Matrices, n)
			}
		}
		switch {
		case classes > 0:
			s.Classes = s.Classes[:int(classes)%len(s.Classes)]
		case classes < 0:
			s.Classes = append(s.Classes, int(classes))
		}
		m := newConf(t, name)
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("%s: panic: %v", name, r)
			}
		}()
		if err := m.SetState(s); err != nil {
			return
		}
		got, err := m.Predict(Yt)
		if err != nil {
			return
		}
		for _, l := range got {
			if !slices.Contains(s.Classes, l) {
				t.Fatalf("%s: predicted %d, not one of the classes %v", name, l, s.Classes)
			}
		}
	})
}
