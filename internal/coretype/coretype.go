// Package coretype lets the project's programs restart themselves with the
// OpenBLAS kernel set that suits the CPU (see lrsdl.OpenBLASCoreHint).
package coretype

import (
	"os"
	"testing"

	"github.com/lrsdl/lrsdl"
)

// Env is the environment variable OpenBLAS reads its kernel set from.
const Env = "OPENBLAS_CORETYPE"

// Restart re-executes the running program with OPENBLAS_CORETYPE set to
// lrsdl.OpenBLASCoreHint() when that is not empty and the variable is not
// set. It returns only if no restart is due or the restart failed; the
// program then runs with the kernels OpenBLAS chose.
func Restart() {
	hint := lrsdl.OpenBLASCoreHint()
	if hint == "" || os.Getenv(Env) != "" {
		return
	}
	exe, err := os.Executable()
	if err != nil {
		return
	}
	exec(exe, os.Args, append(os.Environ(), Env+"="+hint))
}

// Main is a TestMain that restarts the test binary as Restart does, so that
// benchmarks measure the kernels that suit the CPU, then runs the tests.
func Main(m *testing.M) {
	Restart()
	os.Exit(m.Run())
}
