package blas

import (
	"os"
	"slices"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"
)

// atImport is the backend before TestMain chose one: importing the package
// must leave gonum's.
var atImport string

func TestMain(m *testing.M) {
	atImport = Backend()
	Setup()
	os.Exit(m.Run())
}

// backends runs f as a subtest once per linked BLAS (Implementations) and
// restores the current one afterwards. internal/testutil.Backends does the
// same for the other packages; it imports this one, so it cannot serve here.
func backends(t *testing.T, f func(t *testing.T)) {
	orig := blas64.Implementation()
	defer blas64.Use(orig)
	impls := Implementations()
	names := make([]string, 0, len(impls))
	for n := range impls {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		blas64.Use(impls[n])
		t.Run(n, f)
	}
}
