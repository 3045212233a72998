//go:build openblas

package lrsdl

import (
	"testing"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/netlib/blas/netlib"
)

func TestBackendIsOpenBLAS(t *testing.T) {
	if b := Backend(); b != "openblas" {
		t.Errorf("Backend() = %q in the openblas build, want \"openblas\"", b)
	}
	if impl, ok := blas64.Implementation().(netlib.Implementation); !ok {
		t.Errorf("blas64 uses %T in the openblas build, want netlib.Implementation", impl)
	}
	if _, ok := Implementations()["openblas"].(netlib.Implementation); !ok || len(Implementations()) != 2 {
		t.Errorf("Implementations() = %v, want gonum and openblas (netlib)", Implementations())
	}
}
