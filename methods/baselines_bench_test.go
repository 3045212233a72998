package methods

import (
	"context"
	"testing"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/data"
)

// BenchmarkFlowerFit times one Fit at the default options of each method
// without a Fisher model on Oxford Flower split 1 (d=10000, N=1020, 17
// classes, 60 per class, unit-norm samples), the sizes of issue #16.
func BenchmarkFlowerFit(b *testing.B) {
	ds, err := data.Load("../testdata/flower17-split1.mat", data.LoadOptions{Normalize: true})
	if err != nil {
		b.Skip(err)
	}
	for _, name := range []string{"SRC", "ODL", "LCKSVD1", "LCKSVD2", "DLSI", "COPAR"} {
		b.Run(name, func(b *testing.B) {
			var m lrsdl.Classifier
			done := cpuMetric(b)
			for i := 0; i < b.N; i++ {
				m, _ = New(name)
				if err := m.Fit(context.Background(), ds.Train.Y, ds.Train.Labels); err != nil {
					b.Fatal(err)
				}
			}
			done()
			if _, err := m.Predict(ds.Test.Y); err != nil {
				b.Fatal(err)
			}
		})
	}
}
