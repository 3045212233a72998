package methods

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/data"
	"github.com/lrsdl/lrsdl/split"
)

// newARGender returns AR gender (unit-normalised columns) with 250 training
// samples per class drawn from the training half and the whole test half.
func newARGender(t *testing.T) (train, test split.Set) {
	if testing.Short() || os.Getenv("LRSDL_ARGENDER") == "" {
		t.Skip("AR gender training runs only with LRSDL_ARGENDER=1")
	}
	ds, err := data.Load("../testdata/argender.mat", data.LoadOptions{Normalize: true})
	if err != nil {
		t.Fatal(err)
	}
	train, err = split.Draw(ds.Train, 250, split.Rand(1))
	if err != nil {
		t.Fatal(err)
	}
	return train, ds.Test
}

// TestNewMethodsARGender trains JDL, JDL*, DLRD and SRRS at their defaults
// on AR gender (set LRSDL_ARGENDER=1; LRSDL_METHODS limits the methods).
func TestNewMethodsARGender(t *testing.T) {
	train, test := newARGender(t)
	names := []string{"JDL", "JDL*", "DLRD", "SRRS"}
	for _, name := range names {
		if f := os.Getenv("LRSDL_METHODS"); f != "" && f != name {
			continue
		}
		m, err := New(name)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		if err := m.Fit(context.Background(), train.Y, train.Labels); err != nil {
			t.Fatal(err)
		}
		el := time.Since(start)
		acc := dlsiAccuracy(t, m, test)
		t.Logf("%s AR gender accuracy %.4f, fit %.2fs (%s)", name, acc, el.Seconds(), lrsdl.Backend())
		if acc < 0.88 {
			t.Errorf("%s: AR gender accuracy %.4f, want ≥ 0.88", name, acc)
		}
	}
}
