package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl/eval"
	"github.com/lrsdl/lrsdl/internal/modelfile"
)

// The model records -normalize and predict prepares new samples the same
// way: unit columns after a normalised training, raw ones otherwise.
func TestPredictAppliesNormalization(t *testing.T) {
	defer useFakes("FAKE")()
	csv := twoClassCSV(t, 10)
	dir := t.TempDir()
	for _, norm := range []bool{true, false} {
		model := filepath.Join(dir, "m")
		args := []string{"train", "-q", "-data", csv, "-method", "FAKE", "-o", model}
		if !norm {
			args = append(args, "-normalize=false")
		}
		if code, _, e := runCmd(t, args...); code != 0 {
			t.Fatalf("train: %s", e)
		}
		if st, info := readState(t, model); info.Normalize != norm || info.Version != modelfile.Version || strings.Contains(string(st.Options), `"no_normalize":true`) == norm {
			t.Fatalf("model info %+v, options %s", info, st.Options)
		}
		code, o, e := runCmd(t, "predict", "-data", csv, "-model", model)
		if code != 0 {
			t.Fatalf("predict: %s", e)
		}
		if want := map[bool]string{true: "samples scaled to unit ℓ2 norm, as the model's", false: "samples used as they are"}[norm]; !strings.Contains(o, want) {
			t.Errorf("normalize=%v: output lacks %q:\n%s", norm, want, o)
		}
		Y := fakeLog.predictY
		unit := true
		for j := range 20 {
			if n := floats.Norm(mat.Col(nil, j, Y), 2); n < 1-1e-12 || n > 1+1e-12 {
				unit = false
			}
		}
		if unit != norm {
			t.Errorf("normalize=%v: predict's samples have unit norm: %v", norm, unit)
		}
	}
}

// Without labels, predict writes one label per sample (to stdout without
// -o) and no accuracy; -o FILE.json writes JSON.
func TestPredictUnlabelled(t *testing.T) {
	defer useFakes("FAKE")()
	csv := twoClassCSV(t, 10)
	dir := t.TempDir()
	model := filepath.Join(dir, "m")
	if code, _, e := runCmd(t, "train", "-q", "-data", csv, "-method", "FAKE", "-o", model); code != 0 {
		t.Fatal(e)
	}
	// The same samples without the label column (the first has a
	// non-integer value, so the file has no label column).
	b, _ := os.ReadFile(csv)
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		lines = append(lines, l[:strings.LastIndex(l, ",")])
	}
	bare := filepath.Join(dir, "new.csv")
	os.WriteFile(bare, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	code, o, e := runCmd(t, "predict", "-data", bare, "-model", model)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, e)
	}
	rows := strings.Split(strings.TrimSpace(o), "\n")
	if len(rows) != 21 || rows[0] != "sample,predicted" || rows[1] != "0,3" || rows[2] != "1,7" {
		t.Errorf("predictions on stdout:\n%s", o)
	}
	if strings.Contains(e, "accuracy ") || !strings.Contains(e, "no labels: no accuracy") {
		t.Errorf("stderr %q", e)
	}
	out := filepath.Join(dir, "p.json")
	if code, _, e = runCmd(t, "predict", "-data", bare, "-model", model, "-no-labels", "-o", out); code != 0 {
		t.Fatalf("exit %d: %s", code, e)
	}
	var p predictions
	b, _ = os.ReadFile(out)
	if err := json.Unmarshal(b, &p); err != nil || len(p.Predicted) != 20 || p.Labels != nil || p.Set != "all" || !p.Normalize || p.Predicted[1] != 7 {
		t.Errorf("JSON %s: %+v, %v", b, p, err)
	}
}

// An unwritable -o is found before any training or prediction, and a
// failed command leaves no file behind.
func TestOutputCheckedFirst(t *testing.T) {
	defer useFakes("FAKE")()
	csv := twoClassCSV(t, 5)
	dir := t.TempDir()
	fits := fakeLog.fits
	for _, args := range [][]string{
		{"train", "-data", csv, "-method", "FAKE", "-o", filepath.Join(dir, "none", "m")},
		{"train", "-data", csv, "-method", "FAKE", "-o", dir},
		{"predict", "-data", csv, "-model", filepath.Join(dir, "none.model"), "-o", filepath.Join(dir, "none", "p.csv")},
	} {
		code, _, e := runCmd(t, args...)
		if code != 1 || !strings.Contains(e, "-o "+args[len(args)-1]) {
			t.Errorf("%v: exit %d, stderr %q", args, code, e)
		}
	}
	if fakeLog.fits != fits {
		t.Error("trained before finding -o unwritable")
	}
	// predict stops on cancellation (Ctrl-C) and writes nothing.
	model := filepath.Join(dir, "m")
	if code, _, e := runCmd(t, "train", "-q", "-data", csv, "-method", "FAKE", "-o", model); code != 0 {
		t.Fatal(e)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if code, _, e := runCtx(ctx, "predict", "-data", csv, "-model", model, "-o", filepath.Join(dir, "p.csv")); code != 1 || !strings.Contains(e, "interrupted") {
		t.Errorf("cancelled predict: exit %d, stderr %q", code, e)
	}
	os.Remove(model)
	// A bad model file: nothing is written.
	bad := filepath.Join(dir, "bad.model")
	os.WriteFile(bad, []byte("LRSDLMDL"), 0o644)
	if code, _, _ := runCmd(t, "predict", "-data", csv, "-model", bad, "-o", filepath.Join(dir, "p.csv")); code != 1 {
		t.Errorf("bad model: exit %d", code)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("left behind: %v", ents)
	}
}

// eval reports each fit with its split, cross-validation candidate and
// fold, one line per iteration with -v.
func TestEvalProgress(t *testing.T) {
	defer useFakes("FAKE")()
	eval.DefaultGrids["FAKE"] = eval.Grid{"lambda": {0.9, 0.1}}
	defer delete(eval.DefaultGrids, "FAKE")
	code, _, e := runCmd(t, "eval", "-v", "-data", digits, "-method", "FAKE", "-train-per-class", "10", "-test-per-class", "5", "-splits", "2", "-cv", "3", "-p", "iters=2", "-p", "tol=0")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, e)
	}
	for _, want := range []string{
		"FAKE: 2 splits, each choosing among 2 grid points by 3-fold cross-validation (fewer if k is capped)",
		"FAKE: split 1/2 cross-validation: 2 grid points; chose lambda=0.1 (",
		"FAKE: split 1/2 · cv 1/2 lambda=0.9 · fold 3/3 · iter 2 cost 0.5",
		"FAKE: split 2/2 · cv 2/2 lambda=0.1 · fold 1/3 · iter 1 cost 1",
		"FAKE: split 2/2 · final fit lambda=0.1 · iter 2 cost 0.5",
		"FAKE: split 2/2 accuracy ",
	} {
		if !strings.Contains(e, want) {
			t.Errorf("stderr lacks %q:\n%s", want, e)
		}
	}
	if n := strings.Count(e, " · iter "); n != 2*(2*3+1)*2 {
		t.Errorf("%d iteration lines, want 28", n)
	}
	// -q: nothing on stderr.
	if _, _, e := runCmd(t, "eval", "-q", "-data", digits, "-method", "FAKE", "-train-per-class", "10", "-cv", "3"); e != "" {
		t.Errorf("-q wrote %q", e)
	}
}

// demo writes into a new directory it names unless given -out.
func TestDemoDefaultDir(t *testing.T) {
	defer useFakes("LRSDL")()
	t.Chdir(t.TempDir())
	for _, want := range []string{"lrsdl-demo-1", "lrsdl-demo-2"} {
		code, o, e := runCmd(t, "demo", "-train-per-class", "5", "-test-per-class", "2")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, e)
		}
		if _, err := os.Stat(filepath.Join(want, "atoms.png")); err != nil || !strings.Contains(o, "wrote "+filepath.Join(want, "atoms.png")) {
			t.Errorf("%s: %v\n%s", want, err, o)
		}
	}
}

// methods lists every option with its default, range and meaning.
func TestMethods(t *testing.T) {
	code, o, e := runCmd(t, "methods", "LRSDL")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, e)
	}
	for _, want := range []string{"LRSDL (-method LRSDL)", "option", "default", "range", "meaning",
		"k ", "min(20, smallest class)", "≥ 1, at most the samples of the smallest class", "atoms per class", "eta"} {
		if !strings.Contains(o, want) {
			t.Errorf("output lacks %q:\n%s", want, o)
		}
	}
	code, o, _ = runCmd(t, "methods", "-json")
	if code != 0 || strings.Count(o, "\n") < 5 || !strings.Contains(o, `{"name":"lambda1","type":"float","default":"0.01","range":`) {
		t.Errorf("-json: exit %d\n%s", code, o)
	}
	if code, _, e := runCmd(t, "methods", "NOPE"); code != 2 || !strings.Contains(e, `unknown method "NOPE"`) {
		t.Errorf("unknown method: exit %d, %q", code, e)
	}
	if code, o, e := runCmd(t, "methods", "-json", "FDDL"); code != 0 || strings.Count(o, "\n") != 1 || !strings.Contains(o, `"method":"FDDL"`) {
		t.Errorf("methods -json FDDL: exit %d, %q %q", code, o, e)
	}
}

// predict prints the confusion matrix of labelled data unless
// -confusion=false, or -q without -confusion.
func TestPredictConfusion(t *testing.T) {
	csv := twoClassCSV(t, 10)
	model := filepath.Join(t.TempDir(), "m")
	if code, _, e := runCmd(t, "train", "-q", "-data", csv, "-method", "FDDL", "-iters", "2", "-o", model); code != 0 {
		t.Fatalf("train: %s", e)
	}
	for _, c := range []struct {
		args []string
		want bool
	}{{nil, true}, {[]string{"-confusion=false"}, false}, {[]string{"-q"}, false}, {[]string{"-q", "-confusion"}, true}} {
		code, o, e := runCmd(t, append([]string{"predict", "-model", model, "-data", csv}, c.args...)...)
		if code != 0 || !strings.Contains(o, "accuracy") {
			t.Fatalf("%v: exit %d: %s", c.args, code, e)
		}
		if got := strings.Contains(o, "confusion matrix"); got != c.want {
			t.Errorf("%v: confusion matrix %v, want %v", c.args, got, c.want)
		}
	}
}

// train -json holds the resolved options, the iterations run, why
// training stopped and the final cost, the normalisation and the backend.
func TestTrainJSON(t *testing.T) {
	out := filepath.Join(t.TempDir(), "m")
	code, o, e := runCmd(t, "train", "-q", "-json", "-data", "../../testdata/argender.mat", "-method", "LRSDL", "-train-per-class", "8", "-iters", "3", "-p", "tol=0", "-o", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, e)
	}
	var r trainResult
	dec := json.NewDecoder(strings.NewReader(o))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		t.Fatalf("%v in %s", err, o)
	}
	// k defaults to min(20, smallest class) = 8.
	if r.Method != "LRSDL" || r.Dataset != "argender" || r.Samples != 16 || !r.Normalize || r.Backend == "" ||
		r.Params["k"] != 8.0 || r.Params["iters"] != 3.0 || r.ItersRun != 3 || r.StopReason != "max_iterations" ||
		r.Cost == nil || !(*r.Cost > 0) || r.TestAccuracy == nil || r.TestSamples != 700 || r.Model != out {
		t.Errorf("%+v", r)
	}
}

// An option out of range for the data is a usage error before any output.
func TestDataOptionRange(t *testing.T) {
	code, o, e := runCmd(t, "eval", "-q", "-data", digits, "-method", "FDDL", "-train-per-class", "7", "-p", "k=50")
	if code != 2 || o != "" || !strings.Contains(e, "-p k=50: k must be at most 7") {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 2, no output and the range", code, o, e)
	}
}
