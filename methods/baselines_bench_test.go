package methods

import (
	"context"
	"testing"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/data"
	"github.com/lrsdl/lrsdl/methods/internal/toy"
)

// BenchmarkFlowerFit times one Fit at the default options of every method
// (Names) on Oxford Flower split 1 (d=10000, N=1020, 17
// classes, 60 per class, unit-norm samples), the sizes of issue #16, and
// reports the test accuracy.
func BenchmarkFlowerFit(b *testing.B) {
	ds, err := data.Load("../testdata/flower17-split1.mat", data.LoadOptions{Normalize: true})
	if err != nil {
		b.Skip(err)
	}
	benchBaselines(b, ds)
}

// BenchmarkCOILFit is BenchmarkFlowerFit on COIL-100 (d=1024, 100 classes,
// 10 training samples per class drawn with seed 1, the rest for testing).
func BenchmarkCOILFit(b *testing.B) {
	ds, err := data.Load("../testdata/coil100-32x32.mat", data.LoadOptions{Normalize: true})
	if err != nil {
		b.Skip(err)
	}
	if err := ds.Split(10, 1); err != nil {
		b.Fatal(err)
	}
	benchBaselines(b, ds)
}

func benchBaselines(b *testing.B, ds *data.Dataset) {
	for _, name := range Names() {
		b.Run(name, func(b *testing.B) {
			var m lrsdl.Classifier
			done := toy.CPUMetric(b)
			for i := 0; i < b.N; i++ {
				m, _ = New(name)
				if err := m.Fit(context.Background(), ds.Train.Y, ds.Train.Labels); err != nil {
					b.Fatal(err)
				}
			}
			done()
			got, err := m.Predict(ds.Test.Y)
			if err != nil {
				b.Fatal(err)
			}
			ok := 0
			for i, l := range got {
				if l == ds.Test.Labels[i] {
					ok++
				}
			}
			b.ReportMetric(100*float64(ok)/float64(len(got)), "acc%")
		})
	}
}

// BenchmarkCOILIter2 is BenchmarkCOILFit for DLSI and COPAR limited to two
// outer iterations, to measure the cost per iteration.
func BenchmarkCOILIter2(b *testing.B) {
	ds, err := data.Load("../testdata/coil100-32x32.mat", data.LoadOptions{Normalize: true})
	if err != nil {
		b.Skip(err)
	}
	if err := ds.Split(10, 1); err != nil {
		b.Fatal(err)
	}
	for _, name := range []string{"DLSI", "COPAR"} {
		b.Run(name, func(b *testing.B) {
			done := toy.CPUMetric(b)
			for i := 0; i < b.N; i++ {
				var m lrsdl.Classifier = &DLSI{Options: DLSIOptions{Iters: 2}}
				if name == "COPAR" {
					m = &COPAR{Options: COPAROptions{Iters: 2}}
				}
				if err := m.Fit(context.Background(), ds.Train.Y, ds.Train.Labels); err != nil {
					b.Fatal(err)
				}
			}
			done()
		})
	}
}
