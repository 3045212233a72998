//go:build openblas && cgo

package lrsdl

// #cgo LDFLAGS: -lopenblas
import "C"

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/netlib/blas/netlib"
)

const backend = "openblas"

func init() { blas64.Use(netlib.Implementation{}) }

func addImplementations(m map[string]blas.Float64) { m["openblas"] = netlib.Implementation{} }
