package blas

import (
	"errors"
	"strings"

	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/blas/gonum"
)

// Backend returns the name of the BLAS that gonum's blas64 uses now:
// "openblas" after UseOpenBLAS, "gonum" for gonum's pure-Go BLAS (the
// default), and "other" for any implementation a program installed itself.
func Backend() string {
	switch blas64.Implementation().(type) {
	case gonum.Implementation:
		return "gonum"
	case OpenBLAS:
		return "openblas"
	}
	return "other"
}

// OpenBLASLinked reports whether this binary was built with -tags openblas.
func OpenBLASLinked() bool { return openBLASLinked }

// UseOpenBLAS makes gonum's blas64 — and so every method of this library —
// compute with OpenBLAS (level 3; see OpenBLAS). Importing the library never
// changes the BLAS a program uses; a program that wants OpenBLAS calls this
// once at start-up. It returns an error, leaving blas64 as it was, when the
// binary was built without -tags openblas.
func UseOpenBLAS() error {
	if !openBLASLinked {
		return errors.New("blas: OpenBLAS is not linked: build with -tags openblas (cgo and libopenblas-dev)")
	}
	blas64.Use(openBLAS)
	return nil
}

// Implementations returns the BLAS implementations linked into this binary
// by name: always "gonum", and "openblas" in the openblas build. Tests use it
// with blas64.Use to check that the backends agree.
func Implementations() map[string]gblas.Float64 {
	m := map[string]gblas.Float64{"gonum": gonum.Implementation{}}
	if openBLASLinked {
		m["openblas"] = openBLAS
	}
	return m
}

// BackendDetail describes the linked BLAS: for OpenBLAS its build
// configuration, the kernel set ("core") it chose for this CPU and its
// thread count.
func BackendDetail() string { return backendDetail() }

// OpenBLASCoreHint returns the value of the OPENBLAS_CORETYPE environment
// variable that would make OpenBLAS use this CPU's vector units, or "" when
// it already does (and in the pure-Go build). An OpenBLAS older than the CPU
// does not recognise it and falls back to generic SSE kernels, several times
// slower (see bench/NOTES.md). OpenBLAS reads the variable when the program
// starts, so it must be set in the environment of the process; the lrsdl
// command and the bench programs restart themselves with it.
func OpenBLASCoreHint() string { return openBLASCoreHint() }

// coreHint returns the OPENBLAS_CORETYPE for a CPU with AVX-512 (SkylakeX)
// or AVX2 (Haswell) on which OpenBLAS chose the older kernel set core, or "".
// On an AVX-512 CPU, Zen (AVX2 kernels, which an OpenBLAS that does not
// know an AVX-512 AMD CPU may choose) counts as older: its Dgemm is slower
// than SkylakeX's (BenchmarkDgemm_K1000K1000N2000; see bench/NOTES.md).
func coreHint(core string, avx512, avx2 bool) string {
	switch strings.ToLower(core) {
	case "prescott", "core2", "penryn", "dunnington", "nehalem", "atom", "sandybridge",
		"opteron", "opteron_sse3", "barcelona", "bobcat", "bulldozer", "piledriver", "steamroller", "excavator":
	case "zen":
		if !avx512 {
			return ""
		}
	default:
		return ""
	}
	switch {
	case avx512:
		return "SkylakeX"
	case avx2:
		return "Haswell"
	}
	return ""
}
