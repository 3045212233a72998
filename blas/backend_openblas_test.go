//go:build openblas

package blas

import (
	"testing"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/blas/gonum"
)

func TestBackendIsOpenBLAS(t *testing.T) {
	orig := blas64.Implementation()
	defer blas64.Use(orig)
	if atImport != "gonum" {
		t.Errorf("Backend() = %q before UseOpenBLAS: importing the library changed the BLAS", atImport)
	}
	if !OpenBLASLinked() {
		t.Error("OpenBLASLinked() = false in the openblas build")
	}
	if err := UseOpenBLAS(); err != nil {
		t.Fatal(err)
	}
	if b := Backend(); b != "openblas" {
		t.Errorf("Backend() = %q in the openblas build, want \"openblas\"", b)
	}
	impl, ok := blas64.Implementation().(OpenBLAS)
	if !ok {
		t.Fatalf("blas64 uses %T in the openblas build, want OpenBLAS", blas64.Implementation())
	}
	if _, ok := impl.Float64Level3.(Level3); !ok {
		t.Errorf("level 3 is %T, want Level3", impl.Float64Level3)
	}
	if _, ok := impl.Float64Level2.(gonum.Implementation); !ok {
		t.Errorf("level 2 is %T, want gonum.Implementation", impl.Float64Level2)
	}
	if _, ok := Implementations()["openblas"].(OpenBLAS); !ok || len(Implementations()) != 2 {
		t.Errorf("Implementations() = %v, want gonum and openblas", Implementations())
	}
}
