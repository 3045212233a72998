package methods

import (
	"context"
	"os"
	"strings"
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
	return arGenderSplit(t, true)
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

// TestNewMethodsARGenderCV is the search that chose the defaults of JDL,
// DLRD and SRRS: person-grouped 4-fold cross-validation on the AR gender
// training draw (Y_train holds 14 consecutive images per person). Set
// LRSDL_CV="METHOD;name=value,name=value;..." (one setting per ";", "" for
// the defaults) and LRSDL_ARGENDER=1.
func TestNewMethodsARGenderCV(t *testing.T) {
	spec := os.Getenv("LRSDL_CV")
	if spec == "" {
		t.Skip("set LRSDL_CV to run the cross-validation")
	}
	newARGender(t) // skips unless LRSDL_ARGENDER is set
	ds, err := data.Load("../testdata/argender.mat", data.LoadOptions{Normalize: true})
	if err != nil {
		t.Fatal(err)
	}
	tri, _, err := split.PerClass(ds.Train.Labels, 250, 0, split.Rand(1))
	if err != nil {
		t.Fatal(err)
	}
	train := split.Subset(ds.Train, tri)
	groups := make([]int, len(tri))
	for i, j := range tri {
		groups[i] = j / 14
	}
	fold, err := split.GroupFolds(train.Labels, groups, 4, split.Rand(3))
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(spec, ";")
	for _, cfg := range parts[1:] {
		var acc float64
		for f := 0; f < 4; f++ {
			a, b := split.Fold(fold, f)
			m, err := New(parts[0])
			if err != nil {
				t.Fatal(err)
			}
			for _, kv := range strings.Split(cfg, ",") {
				if k, v, ok := strings.Cut(kv, "="); ok {
					if err := m.(lrsdl.Configurable).SetParam(k, v); err != nil {
						t.Fatal(err)
					}
				}
			}
			tr := split.Subset(train, a)
			if err := m.Fit(context.Background(), tr.Y, tr.Labels); err != nil {
				t.Fatal(err)
			}
			acc += dlsiAccuracy(t, m, split.Subset(train, b)) / 4
		}
		t.Logf("%s %q: cross-validated accuracy %.4f", parts[0], cfg, acc)
	}
}
