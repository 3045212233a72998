package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// eval -cv merges grid points that capping k makes equal, reports the k
// that was scored, and gives the iterations of the chosen point.
func TestEvalCVAccount(t *testing.T) {
	defer useFakes("FAKE")()
	// 7 training samples per class in 3 folds: 4 or 5 per class in a
	// training fold, so every k below is scored as 4. FAKE scores both λ
	// alike: the tie goes to the larger.
	args := []string{"eval", "-data", digits, "-method", "FAKE", "-train-per-class", "7", "-test-per-class", "5",
		"-cv", "3", "-grid", "k={7,6,5} lambda={0.1,0.2}", "-p", "iters=3", "-p", "tol=0"}
	code, _, e := runCmd(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, e)
	}
	want := "FAKE: split 1/1 cross-validation: 6 grid points, 2 after capping k at the folds' smallest class (4); chose k=4,lambda=0.2 ("
	if !strings.Contains(e, want) || !strings.Contains(e, "% at 3 iterations)") || strings.Contains(e, "chose k=7") {
		t.Errorf("stderr lacks %q or the chosen point's iterations:\n%s", want, e)
	}
	code, o, e := runCmd(t, append(args, "-json")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, e)
	}
	var r evalResult
	if err := json.Unmarshal([]byte(o), &r); err != nil {
		t.Fatal(err)
	}
	if len(r.CVScores) != 1 || len(r.CVScores[0]) != 2 || r.CVKCap[0] != 4 || r.CVChosen[0]["k"] != 4.0 || r.CVChosenIters[0] != 3 || r.CVDistinct[0] != 2 {
		t.Errorf("JSON: scores %v, k cap %v, chosen %v at %v iterations, %v distinct", r.CVScores, r.CVKCap, r.CVChosen, r.CVChosenIters, r.CVDistinct)
	}
}
