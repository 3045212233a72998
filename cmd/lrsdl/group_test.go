package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEvalGroupSize: with three near-copies of every subject and labels
// that do not depend on the features, a validation sample whose copy is
// in the training folds is recognised by SRC, so ungrouped folds score
// near 100 % while folds keeping each subject together score near chance.
func TestEvalGroupSize(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var b strings.Builder
	for s := range 44 {
		label := 1 + s%2
		base := make([]float64, 20)
		for i := range base {
			base[i] = rng.NormFloat64()
		}
		for range 3 {
			for _, v := range base {
				fmt.Fprintf(&b, "%.5f,", v+0.01*rng.NormFloat64())
			}
			fmt.Fprintf(&b, "%d\n", label)
		}
	}
	path := filepath.Join(t.TempDir(), "subjects.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	cvAcc := func(extra ...string) float64 {
		t.Helper()
		args := append([]string{"eval", "-q", "-json", "-data", path, "-method", "SRC", "-train-per-class", "60", "-test-per-class", "6", "-cv", "3", "-grid", "lambda={0.001}"}, extra...)
		code, o, e := runCmd(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, e)
		}
		var r evalResult
		if err := json.Unmarshal([]byte(o), &r); err != nil {
			t.Fatalf("%v: %v in %q", args, err, o)
		}
		if len(r.CVScores) != 1 || len(r.CVScores[0]) != 1 {
			t.Fatalf("%v: cv_scores %v, want one split of one point", args, r.CVScores)
		}
		return r.CVScores[0][0].Accuracy
	}
	if a := cvAcc(); a < 0.9 {
		t.Errorf("ungrouped CV accuracy %.3f, want ≥ 0.9 (copies of a subject on both sides)", a)
	}
	if a := cvAcc("-group-size", "3"); a > 0.75 {
		t.Errorf("CV accuracy with -group-size 3 is %.3f, want ≤ 0.75 (labels are random per subject)", a)
	}
	for _, c := range [][]string{{"-group-size", "3"}, {"-cv", "3", "-group-size", "-1"}, {"-cv", "3", "-group-size", "66"}} {
		args := append([]string{"eval", "-q", "-data", path, "-method", "SRC", "-train-per-class", "60"}, c...)
		if code, _, e := runCmd(t, args...); code != 2 || !strings.Contains(e, "group") {
			t.Errorf("%v: exit %d, stderr %q; want a usage error naming the groups", c, code, e)
		}
	}
}

// Without -group-size, -cv warns that a subject's samples may fall in
// several folds only when the classes are few.
func TestEvalGroupWarning(t *testing.T) {
	defer useFakes("FAKE")()
	for _, c := range []struct {
		path string
		warn bool
	}{{digits, true}, {"../../testdata/coil100-32x32.mat", false}} {
		code, _, e := runCmd(t, "eval", "-data", c.path, "-method", "FAKE", "-train-per-class", "5", "-test-per-class", "2", "-cv", "2", "-grid", "lambda={0.1}")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.path, code, e)
		}
		if got := strings.Contains(e, "give -group-size N"); got != c.warn {
			t.Errorf("%s: warning %v, want %v:\n%s", c.path, got, c.warn, e)
		}
	}
}
