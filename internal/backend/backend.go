// Package backend is how the project's programs and test binaries choose
// their BLAS: OpenBLAS when the binary links it, with the kernel set that
// suits the CPU (see lrsdl.OpenBLASCoreHint), gonum's pure-Go BLAS otherwise.
package backend

import (
	"os"

	"github.com/lrsdl/lrsdl"
)

// Env is the environment variable OpenBLAS reads its kernel set from.
const Env = "OPENBLAS_CORETYPE"

// Setup restarts the program as Restart does, then installs OpenBLAS when
// the binary links it (lrsdl.UseOpenBLAS). It returns lrsdl.Backend().
func Setup() string {
	Restart()
	_ = lrsdl.UseOpenBLAS() // an error only means OpenBLAS is not linked: keep gonum
	return lrsdl.Backend()
}

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
