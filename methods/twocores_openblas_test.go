//go:build openblas

package methods

import (
	"testing"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/internal/parallel"
)

// BenchmarkTwoCoresSplit is BenchmarkTwoCores with the products from
// parallel.SplitMin multiply-adds split between the cores
// (lrsdl.GemmSplitMin), the other side of README's two-core figure.
func BenchmarkTwoCoresSplit(b *testing.B) {
	defer func(m int) { lrsdl.GemmSplitMin = m }(lrsdl.GemmSplitMin)
	lrsdl.GemmSplitMin = parallel.SplitMin
	BenchmarkTwoCores(b)
}
