// Command calibration measures how well PredictProba's probabilities are
// calibrated: the expected calibration error (ECE, 10 equal-width bins of
// the predicted class's probability) on the test half of AR gender and of
// COIL-100, before (temperature 1) and after methods.Calibrate, which fits
// the temperature by cross-fitting on the training set only. It prints a
// table and, with -out, writes it to DIR/RESULTS.md and the reliability
// diagrams (accuracy against confidence per bin, calibrated) to
// DIR/reliability.png.
//
//	go run ./bench/calibration [-methods LRSDL,FDDL,SRC] [-sets argender,coil] [-out bench/calibration]
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot"

	"github.com/lrsdl/lrsdl/data"
	"github.com/lrsdl/lrsdl/methods"
	"github.com/lrsdl/lrsdl/report"
	"github.com/lrsdl/lrsdl/split"
)

func main() {
	log.SetFlags(0)
	names := flag.String("methods", "LRSDL,FDDL,SRC", "methods, comma-separated")
	sets := flag.String("sets", "argender,coil", "data sets: argender (250 training samples per class drawn with seed 1), coil (10 views per object)")
	folds := flag.Int("folds", 3, "folds of Calibrate")
	out := flag.String("out", "", "directory for RESULTS.md and reliability.png (none: print the table only)")
	flag.Parse()
	ctx := context.Background()
	var table strings.Builder
	w := io.MultiWriter(os.Stdout, &table)
	fmt.Fprintln(w, "| data | method | accuracy | ECE at T=1 | ECE calibrated | T | NLL at T=1 | NLL calibrated | fit s | calibrate s |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|")
	var panels []*plot.Plot
	for _, set := range strings.Split(*sets, ",") {
		train, test := load(set)
		curves := []report.Series{{Name: "perfect", X: []float64{0, 1}, Y: []float64{0, 1}, Dashed: true, Color: 8}}
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
			acc, e1, n1, _ := measure(P1, m.Classes(), test.Labels)
			_, e, n, r := measure(P, m.Classes(), test.Labels)
			fmt.Fprintf(w, "| %s | %s | %.4f | %.4f | %.4f | %.3g | %.4f | %.4f | %.1f | %.1f |\n", set, name, acc, e1, e, T, n1, n, fit.Seconds(), cal.Seconds())
			curves = append(curves, report.Series{Name: name, X: r.conf, Y: r.acc})
		}
		p, err := report.Lines(set+": calibrated", "confidence (bin mean)", "accuracy", curves...)
		if err != nil {
			log.Fatal(err)
		}
		p.Legend.Left = true
		panels = append(panels, p)
	}
	if *out == "" {
		return
	}
	cmd := "go run ./bench/calibration -methods " + *names + " -sets " + *sets + " -out " + *out
	md := "# Calibration of PredictProba\n\nMade by `" + cmd + "` (pure-Go BLAS unless built with `-tags openblas`); see NOTES.md.\n\n" + table.String() + "\n![reliability diagrams](reliability.png)\n"
	if err := os.WriteFile(filepath.Join(*out, "RESULTS.md"), []byte(md), 0o644); err != nil {
		log.Fatal(err)
	}
	if err := report.SavePNG(filepath.Join(*out, "reliability.png"), [][]*plot.Plot{panels}, 500*len(panels), 450); err != nil {
		log.Fatal(err)
	}
}

// reliability holds, for each non-empty bin, the mean confidence and the
// accuracy of its samples.
type reliability struct{ conf, acc []float64 }

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
// mean negative log-likelihood of the true class, with the reliability
// curve of the bins.
func measure(P *mat.Dense, classes, labels []int) (acc, ece, nll float64, r reliability) {
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
			r.conf = append(r.conf, conf[b]/cnt[b])
			r.acc = append(r.acc, right[b]/cnt[b])
		}
	}
	return acc, ece, nll, r
}
