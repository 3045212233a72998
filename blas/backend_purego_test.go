//go:build !openblas

package blas

import (
	"testing"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/blas/gonum"
)

func TestBackendIsGonum(t *testing.T) {
	if b := Backend(); b != "gonum" {
		t.Errorf("Backend() = %q in the pure-Go build, want \"gonum\"", b)
	}
	if impl, ok := blas64.Implementation().(gonum.Implementation); !ok {
		t.Errorf("blas64 uses %T in the pure-Go build, want gonum.Implementation", impl)
	}
	if err := UseOpenBLAS(); err == nil || OpenBLASLinked() {
		t.Errorf("UseOpenBLAS() = %v, OpenBLASLinked() = %v in the pure-Go build, want an error and false", err, OpenBLASLinked())
	}
	if b := Backend(); b != "gonum" {
		t.Errorf("Backend() = %q after a failed UseOpenBLAS, want \"gonum\"", b)
	}
	if len(Implementations()) != 1 {
		t.Errorf("Implementations() = %v, want only gonum", Implementations())
	}
}
