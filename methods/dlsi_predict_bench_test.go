package methods

import (
	"context"
	"testing"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/data"
	"github.com/lrsdl/lrsdl/internal/cputime"
	"github.com/lrsdl/lrsdl/methods/internal/toy"
	"github.com/lrsdl/lrsdl/split"
)

// BenchmarkDLSIFitPredict times one default Fit (cpu-ms/op) and then one
// Predict of the test set (pred-cpu-ms) of DLSI and COPAR on Oxford Flower
// split 1, COIL-100 (10 training samples per class, seed 1) and AR gender
// (250 per class, seed 1), and reports the final training cost J (computed after every
// iteration for the progress function, inside the timing) and the
// test accuracy.
func BenchmarkDLSIFitPredict(b *testing.B) {
	for _, set := range []struct{ name, file string }{
		{"Flower", "../testdata/flower17-split1.mat"},
		{"COIL", "../testdata/coil100-32x32.mat"},
		{"ARGender", "../testdata/argender.mat"},
	} {
		for _, name := range []string{"DLSI", "COPAR"} {
			b.Run(set.name+"/"+name, func(b *testing.B) {
				ds, err := data.Load(set.file, data.LoadOptions{Normalize: set.name != "ARGender"})
				if err != nil {
					b.Skip(err)
				}
				train, test := ds.Train, ds.Test
				switch set.name {
				case "COIL":
					if err := ds.Split(10, 1); err != nil {
						b.Fatal(err)
					}
					train, test = ds.Train, ds.Test
				case "ARGender":
					if train, err = split.Draw(ds.Train, 250, split.Rand(1)); err != nil {
						b.Fatal(err)
					}
				}
				var m lrsdl.Classifier
				var J float64
				progress := func(p lrsdl.Progress) { J = p.Cost.Total }
				done := toy.CPUMetric(b)
				for i := 0; i < b.N; i++ {
					m = &DLSI{Options: DLSIOptions{Progress: progress}}
					if name == "COPAR" {
						m = &COPAR{Options: COPAROptions{Progress: progress}}
					}
					if err := m.Fit(context.Background(), train.Y, train.Labels); err != nil {
						b.Fatal(err)
					}
				}
				done()
				b.ReportMetric(J, "J")
				t := cputime.Process()
				got, err := m.Predict(test.Y)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(cputime.Process()-t)/1e6, "pred-cpu-ms")
				ok := 0
				for i, l := range got {
					if l == test.Labels[i] {
						ok++
					}
				}
				b.ReportMetric(100*float64(ok)/float64(len(got)), "acc%")
			})
		}
	}
}
