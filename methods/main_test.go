package methods

import (
	"os"
	"testing"

	"github.com/lrsdl/lrsdl/internal/coretype"
)

// TestMain restarts the test binary with the OpenBLAS kernels that suit the
// CPU (see lrsdl.OpenBLASCoreHint), so that benchmarks measure them.
func TestMain(m *testing.M) {
	coretype.Restart()
	os.Exit(m.Run())
}
