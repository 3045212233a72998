// Command calibration measures how well PredictProba's probabilities are
// calibrated: the expected calibration error (ECE, 10 equal-width bins of
// the predicted class's probability) on the test half of AR gender and of
// COIL-100, before (temperature 1) and after methods.Calibrate, which fits
// the temperature by cross-fitting on the training set only.
//
//	go run ./bench/calibration [-methods LRSDL,FDDL,SRC] [-sets argender,coil]
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"math"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl/data"
	"github.com/lrsdl/lrsdl/methods"
	"github.com/lrsdl/lrsdl/split"
)

func main() {
	log.SetFlags(0)
	names := flag.String("methods", "LRSDL,FDDL,SRC", "methods, comma-separated")
	sets := flag.String("sets", "argender,coil", "data sets: argender (250 training samples per class drawn with seed 1), coil (10 views per object)")
	folds := flag.Int("folds", 3, "folds of Calibrate")
	flag.Parse()
	ctx := context.Background()
	fmt.Println("| data | method | accuracy | ECE at T=1 | ECE calibrated | T | NLL at T=1 | NLL calibrated | fit s | calibrate s |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|")
	for _, set := range strings.Split(*sets, ",") {
		train, test := load(set)
		for _, name := range strings.Split(*names, ",") {
			m, err := methods.New(name)
			if err != nil {
				log.Fatal(err)
			}
			t0 := time.Now()
			if err := m.Fit(ctx, train.Y, train.Labels); err != nil {
				log.Fatal(err)
			}
			fit := time.Since(t0)
			P1, err := m.PredictProba(test.Y)
			if err != nil {
				log.Fatal(err)
			}
			t0 = time.Now()
			T, err := methods.Calibrate(ctx, m, train.Y, train.Labels, *folds)
			if err != nil {
				log.Fatal(err)
			}
			cal := time.Since(t0)
			P, err := m.PredictProba(test.Y)
			if err != nil {
				log.Fatal(err)
			}
			acc, e1, n1 := measure(P1, m.Classes(), test.Labels)
			_, e, n := measure(P, m.Classes(), test.Labels)
			fmt.Printf("| %s | %s | %.4f | %.4f | %.4f | %.3g | %.4f | %.4f | %.1f | %.1f |\n", set, name, acc, e1, e, T, n1, n, fit.Seconds(), cal.Seconds())
		}
	}
}

// load returns the training and test sets of a data set, samples at unit
// norm.
func load(set string) (train, test split.Set) {
	switch set {
	case "argender":
		ds, err := data.Load("testdata/argender.mat", data.LoadOptions{Normalize: true})
		if err != nil {
			log.Fatal(err)
		}
		tr, err := split.Draw(ds.Train, 250, split.Rand(1))
		if err != nil {
			log.Fatal(err)
		}
		return tr, ds.Test
	case "coil":
		ds, err := data.Load("testdata/coil100-32x32.mat", data.LoadOptions{Normalize: true})
		if err != nil {
			log.Fatal(err)
		}
		if err := ds.Split(10, 1); err != nil {
			log.Fatal(err)
		}
		return ds.Train, ds.Test
	}
	log.Fatalf("unknown data set %q", set)
	return
}

// measure returns the accuracy of the most probable class, the expected
// calibration error over 10 equal-width bins of its probability, and the
// mean negative log-likelihood of the true class.
func measure(P *mat.Dense, classes, labels []int) (acc, ece, nll float64) {
	const bins = 10
	var cnt, right, conf [bins]float64
	_, n := P.Dims()
	for j := 0; j < n; j++ {
		best := 0
		for c := range classes {
			if P.At(c, j) > P.At(best, j) {
				best = c
			}
			if classes[c] == labels[j] {
				nll -= math.Log(math.Max(P.At(c, j), 1e-300)) / float64(n)
			}
		}
		p := P.At(best, j)
		b := min(int(p*bins), bins-1)
		cnt[b]++
		conf[b] += p
		if classes[best] == labels[j] {
			right[b]++
			acc += 1 / float64(n)
		}
	}
	for b := range cnt {
		if cnt[b] > 0 {
			ece += math.Abs(right[b]-conf[b]) / float64(n)
		}
	}
	return acc, ece, nll
}
