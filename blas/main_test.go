package blas

import (
	"os"
	"testing"

	"github.com/lrsdl/lrsdl/internal/testutil/each"
)

// atImport is the backend before TestMain chose one: importing the package
// must leave gonum's.
var atImport string

func TestMain(m *testing.M) {
	atImport = Backend()
	Setup()
	os.Exit(m.Run())
}

// backends runs f once per linked BLAS (see internal/testutil.Backends,
// which imports this package and so cannot serve its tests).
func backends(t *testing.T, f func(t *testing.T)) { each.Backend(t, Implementations(), f) }
