package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lrsdl/lrsdl/eval"
	"github.com/lrsdl/lrsdl/report"
)

const digits = "../../testdata/digits8x8.csv.gz"

func runCmd(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return runCtx(context.Background(), args...)
}

func runCtx(ctx context.Context, args ...string) (int, string, string) {
	var o, e bytes.Buffer
	code := run(ctx, args, &o, &e)
	return code, o.String(), e.String()
}

// twoClassCSV writes n samples per class of labels 3 and 7, far apart
// in direction.
func twoClassCSV(t *testing.T, n int) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	for j := range 2 * n {
		l := 3 + 4*(j%2)
		for i := range 5 {
			off := 0.0
			if i == j%2 {
				off = 10
			}
			fmt.Fprintf(&b, "%.4f,", off+rng.NormFloat64())
		}
		fmt.Fprintf(&b, "%d\n", l)
	}
	path := filepath.Join(t.TempDir(), "two.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestUsage(t *testing.T) {
	defer useFakes("FAKE")()
	if code, _, e := runCmd(t); code != 2 || !strings.Contains(e, "Usage: lrsdl COMMAND") {
		t.Errorf("no arguments: exit %d, stderr %q", code, e)
	}
	if code, _, e := runCmd(t, "frobnicate"); code != 2 || !strings.Contains(e, `unknown command "frobnicate"`) {
		t.Errorf("unknown command: exit %d, stderr %q", code, e)
	}
	if code, o, _ := runCmd(t, "-h"); code != 0 || !strings.Contains(o, "compare") {
		t.Errorf("-h: exit %d, stdout %q", code, o)
	}
	for _, c := range commands {
		code, o, _ := runCmd(t, c.name, "-h")
		if code != 0 || !strings.Contains(o, "Usage: lrsdl "+c.name) {
			t.Errorf("%s -h: exit %d, stdout %q", c.name, code, o)
		}
	}
	for _, args := range [][]string{
		{"train", "-data", digits, "-o", "x"},                    // no method
		{"train", "-method", "FAKE", "-data", digits},            // no output
		{"train", "-nosuchflag"},                                 // unknown flag
		{"eval", "-data", digits, "-method", "FAKE", "-cv", "1"}, // one fold
		{"eval", "-data", digits, "-method", "NOPE", "-train-per-class", "5"},
		{"eval", "-data", digits, "-method", "FAKE", "-p", "lambda9=1", "-train-per-class", "5"},
		{"compare", "-algo", "svd"},
		{"predict", "-data", digits},
		{"complexity", "extra"},
	} {
		code, _, e := runCmd(t, args...)
		if code != 2 || !strings.Contains(e, "lrsdl "+args[0]) {
			t.Errorf("%v: exit %d, want 2; stderr %q", args, code, e)
		}
	}
	_, _, e := runCmd(t, "eval", "-data", digits, "-method", "FAKE", "-p", "lambda9=1", "-train-per-class", "5")
	if !strings.Contains(e, `no option "lambda9"`) || !strings.Contains(e, "lambda") {
		t.Errorf("unknown option: stderr %q", e)
	}
}

func TestComplexity(t *testing.T) {
	code, o, _ := runCmd(t, "complexity")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"6.25e+12", "2.52e+10 *", "3.75e+10", "6.55e+12", "3.38e+11", "LRSDL", "paper", "qk + k"} {
		if !strings.Contains(o, want) {
			t.Errorf("output lacks %q:\n%s", want, o)
		}
	}
	// C=1, q=1, k=1, d=2: O-DLSI-D = Cqkd³ = 8.
	code, o, _ = runCmd(t, "complexity", "-C", "1", "-n", "1", "-k", "1", "-q", "1", "-d", "2", "-q2", "1")
	if code != 0 || strings.Contains(o, "number  paper") {
		t.Fatalf("exit %d:\n%s", code, o)
	}
	var found bool
	for _, line := range strings.Split(o, "\n") {
		if f := strings.Fields(line); len(f) > 0 && f[0] == "O-DLSI-D" {
			found = f[len(f)-1] == "8"
		}
	}
	if !found {
		t.Errorf("O-DLSI-D at C=q=k=1, d=2 is not 8:\n%s", o)
	}
	if code, _, _ := runCmd(t, "complexity", "-C", "-1"); code != 2 {
		t.Errorf("negative size: exit %d", code)
	}
}

func TestTrainPredict(t *testing.T) {
	defer useFakes("FAKE")()
	data := twoClassCSV(t, 30)
	dir := t.TempDir()
	model := filepath.Join(dir, "m.model")
	code, o, e := runCmd(t, "train", "-data", data, "-method", "FAKE", "-p", "iters=2", "-train-per-class", "10", "-o", model)
	if code != 0 {
		t.Fatalf("train: exit %d: %s", code, e)
	}
	if !strings.Contains(o, "trained FAKE on 20 samples of dimension 5, 2 classes") {
		t.Errorf("train output %q", o)
	}
	preds := filepath.Join(dir, "p.csv")
	code, o, e = runCmd(t, "predict", "-model", model, "-data", data, "-o", preds)
	if code != 0 {
		t.Fatalf("predict: exit %d: %s", code, e)
	}
	if !strings.Contains(o, "accuracy 100.00% on all samples of the file: one data matrix, not a held-out test set") || !strings.Contains(o, "classified all 60 samples of") {
		t.Errorf("predict output:\n%s", o)
	}
	// Confusion matrix rows: label 3 then 7, 30 each on the diagonal.
	var rows [][]string
	for _, line := range strings.Split(o, "\n") {
		if f := strings.Fields(line); len(f) == 3 && (f[0] == "3" || f[0] == "7") {
			rows = append(rows, f)
		}
	}
	if len(rows) != 2 || rows[0][1] != "30" || rows[0][2] != "0" || rows[1][2] != "30" {
		t.Errorf("confusion rows %v in\n%s", rows, o)
	}
	f, err := os.Open(preds)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 61 || recs[0][1] != "predicted" {
		t.Fatalf("%d CSV records, header %v", len(recs), recs[0])
	}
	for _, r := range recs[1:] {
		if r[1] != r[2] || (r[1] != "3" && r[1] != "7") {
			t.Errorf("CSV record %v", r)
		}
	}
	// A missing model names the file.
	code, _, e = runCmd(t, "predict", "-model", filepath.Join(dir, "none.model"), "-data", data)
	if code != 1 || !strings.Contains(e, "none.model") {
		t.Errorf("missing model: exit %d, stderr %q", code, e)
	}
	// A corrupt model is rejected, naming the file.
	bad := filepath.Join(dir, "bad.model")
	os.WriteFile(bad, []byte("not a model"), 0o644)
	if code, _, e = runCmd(t, "predict", "-model", bad, "-data", data); code != 1 || !strings.Contains(e, "bad.model") {
		t.Errorf("corrupt model: exit %d, stderr %q", code, e)
	}
	// A missing data file is named.
	code, _, e = runCmd(t, "train", "-data", filepath.Join(dir, "nope.csv"), "-method", "FAKE", "-o", model)
	if code != 1 || !strings.Contains(e, "nope.csv") {
		t.Errorf("missing data: exit %d, stderr %q", code, e)
	}
	// A missing variable names the file and the variable.
	code, _, e = runCmd(t, "train", "-data", "../../testdata/argender.mat", "-y-var", "nope", "-method", "FAKE", "-o", model)
	if code != 1 || !strings.Contains(e, "argender.mat") || !strings.Contains(e, `"nope"`) {
		t.Errorf("missing variable: exit %d, stderr %q", code, e)
	}
	// Cancellation stops cleanly, says so and writes nothing.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	model2 := filepath.Join(dir, "m2.model")
	code, _, e = runCtx(ctx, "train", "-data", data, "-method", "FAKE", "-o", model2)
	if code != 1 || !strings.Contains(e, "interrupted") {
		t.Errorf("cancelled: exit %d, stderr %q", code, e)
	}
	if _, err := os.Stat(model2); err == nil {
		t.Error("cancelled training wrote a model")
	}
}

func TestTrainVerbose(t *testing.T) {
	defer useFakes("FAKE")()
	data := twoClassCSV(t, 5)
	code, _, e := runCmd(t, "train", "-v", "-data", data, "-method", "FAKE", "-iters", "3", "-p", "tol=-1", "-o", filepath.Join(t.TempDir(), "m"))
	if code != 0 || strings.Count(e, "FAKE: iter ") != 3 || !strings.Contains(e, "iter 3 cost 0.333333") {
		t.Errorf("exit %d, stderr %q", code, e)
	}
}

func TestEvalJSON(t *testing.T) {
	defer useFakes("FAKE", "OTHER")()
	eval.DefaultGrids["FAKE"] = eval.Grid{"lambda": {0.9, 0.1}}
	defer delete(eval.DefaultGrids, "FAKE")
	args := []string{"eval", "-data", digits, "-method", "FAKE,OTHER", "-train-per-class", "15", "-test-per-class", "20", "-splits", "3", "-seed", "4", "-p", "iters=3", "-json"}
	code, o, e := runCmd(t, append(args, "-cv", "3")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, e)
	}
	lines := strings.Split(strings.TrimSpace(o), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines:\n%s", len(lines), o)
	}
	var res []evalResult
	for _, l := range lines {
		var r evalResult
		dec := json.NewDecoder(strings.NewReader(l))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&r); err != nil {
			t.Fatalf("%v in %s", err, l)
		}
		res = append(res, r)
	}
	r := res[0]
	if r.Method != "FAKE" || r.Dataset != "digits8x8" || r.Samples != 1797 || r.Dimension != 64 || r.Classes != 10 ||
		r.Splits != 3 || r.TrainPerClass != 15 || !r.Normalize || r.Backend == "" {
		t.Errorf("result %+v", r)
	}
	// Nearest class mean on digits is far above chance (10%).
	if r.MeanAcc < 0.7 || r.MeanAcc > 1 || r.StdAcc < 0 || r.TrainSeconds <= 0 || r.TestSecondsPerSample <= 0 {
		t.Errorf("result %+v", r)
	}
	if r.CVFolds != 3 || len(r.CVChosen) != 3 || len(r.CVDistinct) != 3 || len(r.CVKCap) != 3 || len(r.CVChosenIters) != 3 {
		t.Fatalf("cross-validation %+v", r)
	}
	// Every score has its iterations; the chosen one was scored at full length.
	for i, sc := range r.CVScores {
		for _, s := range sc {
			if s.Iters <= 0 || s.Iters > r.CVChosenIters[i] {
				t.Errorf("split %d: %v scored at %d iterations, the chosen point at %d", i+1, s.Params, s.Iters, r.CVChosenIters[i])
			}
		}
		if r.CVDistinct[i] != len(sc) {
			t.Errorf("split %d: %d distinct of %d scores", i+1, r.CVDistinct[i], len(sc))
		}
	}
	for i, p := range r.CVChosen {
		if p["lambda"] != 0.1 {
			t.Errorf("cross-validation chose %v, want lambda=0.1", p)
		}
		// The chosen point has the highest score of its split.
		sc := r.CVScores[i]
		if len(sc) != len(r.CVGrid.Points()) {
			t.Fatalf("split %d: %d scores for %d grid points", i+1, len(sc), len(r.CVGrid.Points()))
		}
		for _, s := range sc {
			if s.Params.String() == p.String() {
				for _, o := range sc {
					if o.Accuracy > s.Accuracy {
						t.Errorf("split %d: chose %v (%v) below %v (%v)", i+1, p, s.Accuracy, o.Params, o.Accuracy)
					}
				}
			}
		}
	}
	if res[1].Method != "OTHER" || res[1].CVFolds != 0 {
		t.Errorf("OTHER has no grid: %+v", res[1])
	}
	// -grid replaces the method's grid.
	_, og, e := runCmd(t, "eval", "-data", digits, "-method", "FAKE", "-train-per-class", "15", "-test-per-class", "20", "-seed", "4", "-json", "-cv", "3", "-grid", "lambda={0.9}")
	var rg evalResult
	if err := json.Unmarshal([]byte(og), &rg); err != nil || rg.CVGrid.String() != "lambda={0.9}" || rg.CVChosen[0]["lambda"] != 0.9 {
		t.Errorf("-grid lambda={0.9}: %+v, %v (%s)", rg, err, e)
	}
	// Same seed, same accuracies; the plain table has one row per method.
	_, o2, _ := runCmd(t, append(args, "-cv", "3")...)
	var r2 evalResult
	json.Unmarshal([]byte(strings.Split(o2, "\n")[0]), &r2)
	if r2.MeanAcc != r.MeanAcc || r2.StdAcc != r.StdAcc {
		t.Errorf("not deterministic: %v±%v then %v±%v", r.MeanAcc, r.StdAcc, r2.MeanAcc, r2.StdAcc)
	}
	code, o, _ = runCmd(t, args[:len(args)-1]...)
	if code != 0 || !strings.Contains(o, "accuracy %") || strings.Count(o, "\n") != 4 || !strings.Contains(o, "samples scaled to unit ℓ2 norm") {
		t.Errorf("table: exit %d\n%s", code, o)
	}
	if f := strings.Fields(strings.Split(o, "\n")[2]); len(f) != 5 || f[0] != "FAKE" {
		t.Errorf("table row %v", f)
	} else if acc := f[1]; acc == "" {
		t.Error("no accuracy")
	}
	if r.TestSamples != 10*20 {
		t.Errorf("%d test samples, want 20 of each of 10 classes", r.TestSamples)
	}
	// A file with a test set is tested on all of it.
	code, o, e = runCmd(t, "eval", "-data", splitMAT(t), "-method", "FAKE", "-train-per-class", "5", "-json")
	if err := json.Unmarshal([]byte(o), &r2); code != 0 || err != nil || r2.TestSamples != 60 || r2.MeanAcc < 0.5 {
		t.Errorf("split file: exit %d, %v, %+v, stderr %s", code, err, r2, e)
	}
	// Without -train-per-class a file without a test set is a usage error.
	if code, _, e := runCmd(t, "eval", "-data", digits, "-method", "FAKE"); code != 2 || !strings.Contains(e, "no test set") {
		t.Errorf("exit %d, stderr %q", code, e)
	}
}

func decodePNG(t *testing.T, path string) (w, h int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return img.Bounds().Dx(), img.Bounds().Dy()
}

func TestDemo(t *testing.T) {
	defer useFakes("LRSDL", "DLSI", "SRC")()
	dir := t.TempDir()
	code, o, e := runCmd(t, "demo", "-out", dir, "-train-per-class", "20", "-test-per-class", "10")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, e)
	}
	for _, n := range []string{"LRSDL", "DLSI", "SRC"} {
		found := false
		for _, line := range strings.Split(o, "\n") {
			if f := strings.Fields(line); len(f) == 4 && f[0] == n {
				found = true
			}
		}
		if !found {
			t.Errorf("no table row for %s:\n%s", n, o)
		}
	}
	if !strings.Contains(o, "not available: [FDDL COPAR]") {
		t.Errorf("missing atom panels not reported:\n%s", o)
	}
	// Panels: planted, DLSI, LRSDL.
	if w, h := decodePNG(t, filepath.Join(dir, "atoms.png")); w != 600 || h != 260 {
		t.Errorf("atoms.png is %d×%d, want 600×260", w, h)
	}
	if code, _, e := runCmd(t, "demo", "-out", filepath.Join(dir, "none")); code != 1 || !strings.Contains(e, "none: no such directory") {
		t.Errorf("missing -out directory: exit %d, stderr %q", code, e)
	}
	if code, _, e := runCmd(t, "demo", "-out", filepath.Join(dir, "atoms.png")); code != 1 || !strings.Contains(e, "atoms.png: not a directory") {
		t.Errorf("-out naming a file: exit %d, stderr %q", code, e)
	}
}

func TestCompare(t *testing.T) {
	defer useFakes("FDDL", "DLSI")()
	dir := t.TempDir()
	code, o, e := runCmd(t, "compare", "-algo", "fddl", "-C", "3", "-n", "4", "-k", "2", "-iters", "3", "-out", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, e)
	}
	rows := 0
	for _, line := range strings.Split(o, "\n") {
		if strings.HasPrefix(line, "O-FDDL") || strings.HasPrefix(line, "E-FDDL") {
			rows++
			f := strings.Fields(line)
			// The fake's cost after 3 iterations is 1/3, doubled with original_x.
			want := 1.0 / 3
			if strings.HasPrefix(line, "O-FDDL") {
				want *= 2
			}
			var got float64
			fmt.Sscan(f[len(f)-3], &got)
			if math.Abs(got-want) > 1e-5 {
				t.Errorf("%s: final cost %v, want %v", line, got, want)
			}
		}
	}
	if rows != 4 {
		t.Errorf("%d rows:\n%s", rows, o)
	}
	if w, h := decodePNG(t, filepath.Join(dir, "compare-fddl.png")); w != 640 || h != 480 {
		t.Errorf("compare-fddl.png is %d×%d", w, h)
	}
	f, err := os.Open(filepath.Join(dir, "compare-fddl.csv"))
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil || len(recs) != 1+4*3 || recs[12][0] != "E-FDDL" || recs[12][1] != "3" || recs[12][3] != fmt.Sprint(1.0/3) {
		t.Errorf("compare-fddl.csv: %v, %v", recs, err)
	}
	if code, _, e := runCmd(t, "compare", "-algo", "copar", "-C", "3", "-out", dir); code != 2 || !strings.Contains(e, "COPAR") {
		t.Errorf("unregistered method: exit %d, stderr %q", code, e)
	}
}

// The paper's default sizes reproduce its numbers (see report for the formulas).
func TestComplexityDefaultsArePaper(t *testing.T) {
	if report.PaperSizes() != (report.Sizes{C: 100, N: 20, K: 10, Q: 50, D: 500, Q2: 50}) {
		t.Error("paper sizes changed")
	}
}
