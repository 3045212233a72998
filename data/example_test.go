package data_test

import (
	"fmt"
	"log"

	"github.com/lrsdl/lrsdl/data"
)

func ExampleLoad() {
	ds, err := data.Load("../testdata/flower17-split1.mat", data.LoadOptions{Normalize: true})
	if err != nil {
		log.Fatal(err)
	}
	// The paper's protocol for a pre-split file: a fixed number of
	// training samples per class, tested on the file's test set.
	if err := ds.Split(40, 1); err != nil {
		log.Fatal(err)
	}
	d, n := ds.Train.Y.Dims()
	_, m := ds.Test.Y.Dims()
	fmt.Printf("%d classes, %d features, %d training and %d test samples, Y is %T\n", len(ds.Classes), d, n, m, ds.Train.Y)
	// Output:
	// 17 classes, 10000 features, 680 training and 340 test samples, Y is *sparse.CSC
}

// COIL-100 holds fea (1024×7168), gnd (the object, 1..100) and angle (the
// view, 0..355 in steps of 5): Load picks gnd as the labels because its
// values look like class ids, and says so in Notes.
func ExampleLoad_detection() {
	ds, err := data.Load("../testdata/coil100-32x32.mat", data.LoadOptions{Normalize: true})
	if err != nil {
		log.Fatal(err)
	}
	d, n := ds.Train.Y.Dims()
	fmt.Printf("%d classes, %d samples of %d features\n", len(ds.Classes), n, d)
	for _, note := range ds.Notes {
		fmt.Println(note)
	}
	// Output:
	// 100 classes, 7168 samples of 1024 features
	// labels of "fea": "gnd" (100 values 1..100, each at least 68 times), whose values look like class ids, rather than "angle" (72 values 0..355, not consecutive from 0 or 1, each at least 97 times)
	// samples "fea", one set (no test set in the file)
}

func ExampleSyntheticSplit() {
	// The paper's simulated data: 4 classes of 20×20 images, 200 training
	// and 800 test samples per class.
	ds, patterns, err := data.SyntheticSplit(data.SyntheticOptions{Seed: 1}, 200)
	if err != nil {
		log.Fatal(err)
	}
	_, n := ds.Train.Y.Dims()
	_, m := ds.Test.Y.Dims()
	_, k := patterns.Class.Dims()
	_, k0 := patterns.Shared.Dims()
	fmt.Println(n, m, k, k0)
	// Output:
	// 800 3200 16 2
}
