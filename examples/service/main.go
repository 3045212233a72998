// Command service uses lrsdl as a user's service would, through its public
// API only: it trains on samples held as rows, saves the model, loads it in
// a fresh process, classifies, and hands the sparse codes to another model
// as features.
//
//	cd examples && go run ./service
package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl/data"
	"github.com/lrsdl/lrsdl/methods"
)

func main() {
	log.SetFlags(0)
	if len(os.Args) == 3 && os.Args[1] == "predict" {
		predict(os.Args[2])
		return
	}
	dir, err := os.MkdirTemp("", "lrsdl-service")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	model := filepath.Join(dir, "faces.model")
	train(model)

	// Classify in a fresh process, as a service started later would.
	self, err := os.Executable()
	if err != nil {
		log.Fatal(err)
	}
	cmd := exec.Command(self, "predict", model)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		log.Fatal(err)
	}
}

// rows returns samples of 4 classes as the rows of a matrix, the layout
// most data arrives in, with labels 100..103: the first 30 of each class
// for training, or the other 20 for testing.
func rows(test bool) (*mat.Dense, []int) {
	const classes, train, per = 4, 30, 50
	Y, labels := data.FaceLike(classes, 50, per, 1) // one sample per column
	var X []float64
	var out []int
	for j, l := range labels {
		if (j%per >= train) == test {
			X = append(X, mat.Col(nil, j, Y)...)
			out = append(out, l+100)
		}
	}
	return mat.NewDense(len(out), 50, X), out
}

func train(path string) {
	X, labels := rows(false)
	Y := X.T() // samples as columns; the model scales them to unit ℓ2 norm
	m := &methods.LRSDL{}
	if err := m.Fit(context.Background(), Y, labels); err != nil {
		log.Fatal(err)
	}
	// Fit PredictProba's temperature on held-out folds of the training set.
	if _, err := methods.Calibrate(context.Background(), m, Y, labels, 3); err != nil {
		log.Fatal(err)
	}
	if err := methods.SaveFile(path, m); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("trained %s on %d samples in %d iterations\n", m.Name(), len(labels), m.FitInfo().Iters)
}

func predict(path string) {
	// The model comes back with its options, normalisation among them, its
	// classes and its temperature.
	c, err := methods.LoadFile(path)
	if err != nil {
		log.Fatal(err)
	}
	X, labels := rows(true)
	Y := X.T()
	pred, err := c.Predict(Y)
	if err != nil {
		log.Fatal(err)
	}
	right := 0
	for i := range pred {
		if pred[i] == labels[i] {
			right++
		}
	}
	fmt.Printf("loaded %s in a fresh process: %d of %d test samples right\n", c.Name(), right, len(pred))

	// Class probabilities, one column per sample, rows in Classes() order.
	P, err := c.PredictProba(Y)
	if err != nil {
		log.Fatal(err)
	}
	var conf float64
	for j := range pred {
		conf += mat.Max(P.ColView(j)) / float64(len(pred))
	}
	fmt.Printf("classes %v, mean probability of the predicted class %.2f\n", c.Classes(), conf)

	// The codes as features for another model: one column per sample, the
	// class-dictionary rows then the shared ones.
	codes, err := c.Transform(Y)
	if err != nil {
		log.Fatal(err)
	}
	r, n := codes.Dims()
	fmt.Printf("codes: %d rows for each of %d samples\n", r, n)
	if right*10 < 9*len(pred) {
		log.Fatalf("accuracy %d/%d is below 90%%", right, len(pred))
	}
}
