package blas

import "os"

// CoreTypeEnv is the environment variable OpenBLAS reads its kernel set from.
const CoreTypeEnv = "OPENBLAS_CORETYPE"

// Setup is how the project's programs and test binaries choose their BLAS:
// OpenBLAS when the binary links it, with the kernel set that suits the CPU,
// gonum's pure-Go BLAS otherwise. It restarts the program as Restart does,
// then installs OpenBLAS when the binary links it (UseOpenBLAS). It returns
// Backend().
func Setup() string {
	Restart()
	_ = UseOpenBLAS() // an error only means OpenBLAS is not linked: keep gonum
	return Backend()
}

// Restart re-executes the running program with OPENBLAS_CORETYPE set to
// OpenBLASCoreHint() when that is not empty and the variable is not
// set. It returns only if no restart is due or the restart failed; the
// program then runs with the kernels OpenBLAS chose.
func Restart() {
	hint := OpenBLASCoreHint()
	if hint == "" || os.Getenv(CoreTypeEnv) != "" {
		return
	}
	exe, err := os.Executable()
	if err != nil {
		return
	}
	exec(exe, os.Args, append(os.Environ(), CoreTypeEnv+"="+hint))
}
