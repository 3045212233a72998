package online

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/data"
	"github.com/lrsdl/lrsdl/methods"
	"github.com/lrsdl/lrsdl/stream"
)

// faces returns a face-like problem of C classes, n training and n test
// samples per class, d = 60; the training set is in class order.
func faces(C, n int) (Ytr *mat.Dense, ltr []int, Yte *mat.Dense, lte []int) {
	Y, l := data.FaceLike(C, 60, 2*n, 11)
	var tr, te []int
	for i := range l {
		if i%(2*n) < n {
			tr = append(tr, i)
		} else {
			te = append(te, i)
		}
	}
	Ytr, ltr = cols(Y, l, tr)
	Yte, lte = cols(Y, l, te)
	return
}

// cols returns the columns idx of Y and their labels.
func cols(Y *mat.Dense, l []int, idx []int) (*mat.Dense, []int) {
	var m mat.Dense
	gather(&m, Y, idx)
	ls := make([]int, len(idx))
	for i, j := range idx {
		ls[i] = l[j]
	}
	return &m, ls
}

var testOpts = Options{K: 5, K0: 3, Batch: 40, Epochs: 3}

// accuracy returns the percentage of the columns of Y that the model's
// methods classifier labels as want, restricted to labels keep (all if nil).
func accuracy(t *testing.T, m *Model, Y *mat.Dense, want []int, keep func(int) bool) float64 {
	t.Helper()
	c, err := m.Classifier()
	if err != nil {
		t.Fatal(err)
	}
	pred, err := c.Predict(Y)
	if err != nil {
		t.Fatal(err)
	}
	var n, ok int
	for i, l := range want {
		if keep != nil && !keep(l) {
			continue
		}
		n++
		if pred[i] == l {
			ok++
		}
	}
	return 100 * float64(ok) / float64(n)
}

func mustNew(t *testing.T, o Options) *Model {
	t.Helper()
	m, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// half returns the columns of Y with i%2 == r.
func half(Y *mat.Dense, l []int, r int) (*mat.Dense, []int) {
	var idx []int
	for i := range l {
		if i%2 == r {
			idx = append(idx, i)
		}
	}
	return cols(Y, l, idx)
}

// TestPartialFitHalves checks that passes of PartialFit over the training
// set in two halves give a model within 1 point of passes in one call, and
// that both classify well through methods.LRSDL.
func TestPartialFitHalves(t *testing.T) {
	Ytr, ltr, Yte, lte := faces(8, 30)
	ctx := context.Background()
	one, two := mustNew(t, testOpts), mustNew(t, testOpts)
	Y1, l1 := half(Ytr, ltr, 0)
	Y2, l2 := half(Ytr, ltr, 1)
	for e := 0; e < 3; e++ {
		if err := one.PartialFit(ctx, Ytr, ltr); err != nil {
			t.Fatal(err)
		}
		for _, h := range []struct {
			Y *mat.Dense
			l []int
		}{{Y1, l1}, {Y2, l2}} {
			if err := two.PartialFit(ctx, h.Y, h.l); err != nil {
				t.Fatal(err)
			}
		}
	}
	a1, a2 := accuracy(t, one, Yte, lte, nil), accuracy(t, two, Yte, lte, nil)
	t.Logf("accuracy: one call per pass %.2f%%, two halves %.2f%%", a1, a2)
	if math.Abs(a1-a2) > 1 || a1 < 90 {
		t.Errorf("accuracy in one call %.2f%%, in halves %.2f%%: want within 1 point, above 90%%", a1, a2)
	}
	if n, _ := one.Seen(); n == 0 {
		t.Errorf("Seen = 0 after training")
	}
}

// TestNewClass checks that a class first seen by PartialFit is learned
// (its own test samples mostly recognised) without losing more than 1 point
// on the classes trained before.
func TestNewClass(t *testing.T) {
	const C = 8
	Ytr, ltr, Yte, lte := faces(C, 30)
	old := func(l int) bool { return l < C-1 }
	var oldIdx, newIdx []int
	for i, l := range ltr {
		if old(l) {
			oldIdx = append(oldIdx, i)
		} else {
			newIdx = append(newIdx, i)
		}
	}
	Yo, lo := cols(Ytr, ltr, oldIdx)
	Yn, ln := cols(Ytr, ltr, newIdx)
	m := mustNew(t, testOpts)
	ctx := context.Background()
	if err := m.Fit(ctx, &stream.Dense{Y: Yo, Labels: lo, Size: 100}); err != nil {
		t.Fatal(err)
	}
	before := accuracy(t, m, Yte, lte, old)
	for e := 0; e < 2; e++ {
		if err := m.PartialFit(ctx, Yn, ln); err != nil {
			t.Fatal(err)
		}
	}
	if got := m.Classes(); len(got) != C || got[C-1] != C-1 {
		t.Fatalf("classes after PartialFit: %v", got)
	}
	after := accuracy(t, m, Yte, lte, old)
	newAcc := accuracy(t, m, Yte, lte, func(l int) bool { return !old(l) })
	t.Logf("old classes %.2f%% → %.2f%%, new class %.2f%%", before, after, newAcc)
	if after < before-1 {
		t.Errorf("old classes: %.2f%% before the new class, %.2f%% after", before, after)
	}
	if newAcc < 80 {
		t.Errorf("new class: %.2f%% of its test samples recognised", newAcc)
	}
}

func equalStates(t *testing.T, a, b *lrsdl.State) bool {
	t.Helper()
	if a.Method != b.Method || !bytes.Equal(a.Options, b.Options) || !reflect.DeepEqual(a.Classes, b.Classes) || !reflect.DeepEqual(a.Names, b.Names) {
		t.Logf("states differ in method, options, classes or names:\n%s\n%s", a.Options, b.Options)
		return false
	}
	for _, n := range a.Names {
		if !mat.Equal(a.Matrices[n], b.Matrices[n]) {
			t.Logf("matrix %s differs", n)
			return false
		}
	}
	return true
}

// TestResume checks that a model saved to a model file (methods.Save of
// Classifier, then methods.Load and State) between PartialFit calls,
// pending samples included, resumes exactly: the next call gives the same
// state bit for bit as without the interruption, for LRSDL and FDDL.
func TestResume(t *testing.T) {
	Ytr, ltr, _, _ := faces(6, 20)
	Y1, l1 := half(Ytr, ltr, 0)
	Y2, l2 := half(Ytr, ltr, 1)
	// Leave class 5 pending after the first call: only 2 of its samples.
	var keep []int
	n5 := 0
	for i, l := range l1 {
		if l == 5 {
			if n5++; n5 > 2 {
				continue
			}
		}
		keep = append(keep, i)
	}
	Y1p, l1p := cols(Y1, l1, keep)
	for _, method := range []string{"LRSDL", "FDDL"} {
		o := testOpts
		o.Method = method
		if method == "FDDL" {
			o.K0 = 0
		}
		ctx := context.Background()
		a := mustNew(t, o)
		if err := a.PartialFit(ctx, Y1p, l1p); err != nil {
			t.Fatal(err)
		}
		if p := a.Pending(); len(p) != 1 || p[0] != 5 {
			t.Fatalf("%s: pending classes %v, want [5]", method, p)
		}
		c, err := a.Classifier()
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := methods.Save(&buf, c); err != nil {
			t.Fatal(err)
		}
		loaded, err := methods.Load(&buf)
		if err != nil {
			t.Fatal(err)
		}
		st2, err := loaded.State()
		if err != nil {
			t.Fatal(err)
		}
		b := mustNew(t, Options{})
		if err := b.SetState(st2); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(b.Resolved().Method, method) || b.Resolved().K != o.K {
			t.Errorf("%s: resolved options after SetState: %+v", method, b.Resolved())
		}
		for _, m := range []*Model{a, b} {
			if err := m.PartialFit(ctx, Y2, l2); err != nil {
				t.Fatal(err)
			}
		}
		sa, _ := a.State()
		sb, _ := b.State()
		if !equalStates(t, sa, sb) {
			t.Errorf("%s: a model restored between PartialFit calls continues differently", method)
		}
		if len(sa.Classes) != 6 {
			t.Errorf("%s: classes %v after the pending class's samples arrived", method, sa.Classes)
		}
	}
}

// TestCores checks that one seed gives the same model bit for bit with
// GOMAXPROCS 1 and 2.
func TestCores(t *testing.T) {
	Ytr, ltr, _, _ := faces(6, 20)
	var states []*lrsdl.State
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, procs := range []int{1, 2} {
		runtime.GOMAXPROCS(procs)
		m := mustNew(t, Options{K: 5, K0: 3, Batch: 40, Epochs: 2, Seed: 4})
		if err := m.Fit(context.Background(), &stream.Dense{Y: Ytr, Labels: ltr, Size: 70}); err != nil {
			t.Fatal(err)
		}
		st, err := m.State()
		if err != nil {
			t.Fatal(err)
		}
		states = append(states, st)
	}
	if !equalStates(t, states[0], states[1]) {
		t.Errorf("GOMAXPROCS 1 and 2 train different models")
	}
}

// chunks is a Source over fixed chunks.
type chunks struct {
	cs  []stream.Chunk
	pos int
}

func (s *chunks) Next(ctx context.Context) (stream.Chunk, error) {
	if s.pos == len(s.cs) {
		return stream.Chunk{}, io.EOF
	}
	s.pos++
	return s.cs[s.pos-1], nil
}

func (s *chunks) Reset() error { s.pos = 0; return nil }

// TestBadInput checks that bad chunks and inputs are errors naming the
// chunk, and that the model keeps what it had.
func TestBadInput(t *testing.T) {
	Ytr, ltr, _, _ := faces(4, 20)
	ctx := context.Background()
	good := stream.Chunk{Y: Ytr, Labels: ltr, Name: "good.npy"}
	small := mat.NewDense(59, 3, nil)
	nan := mat.DenseCopyOf(Ytr)
	nan.Set(3, 7, math.NaN())
	cases := []struct {
		name string
		bad  stream.Chunk
		want string
	}{
		{"dimension", stream.Chunk{Y: small, Labels: []int{0, 1, 2}, Name: "X_002.npy"}, "X_002.npy has dimension 59"},
		{"fewer labels", stream.Chunk{Y: Ytr, Labels: ltr[:5], Name: "X_003.npy"}, "X_003.npy has 80 samples and 5 labels"},
		{"no labels", stream.Chunk{Y: Ytr, Name: "X_004.npy"}, "X_004.npy has 80 samples and 0 labels"},
		{"NaN", stream.Chunk{Y: nan, Labels: ltr, Name: "X_005.npy"}, "X_005.npy holds NaN"},
	}
	for _, c := range cases {
		m := mustNew(t, testOpts)
		err := m.Fit(ctx, &chunks{cs: []stream.Chunk{good, c.bad}})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Fit error %v, want one containing %q", c.name, err, c.want)
		}
		if _, err := m.State(); err == nil {
			t.Errorf("%s: a failed Fit left a trained model", c.name)
		}
		// PartialFit on a trained model: the error, and no change.
		if err := m.PartialFit(ctx, Ytr, ltr); err != nil {
			t.Fatal(err)
		}
		before, _ := m.State()
		err = m.PartialFit(ctx, c.bad.Y, c.bad.Labels)
		if err == nil || !strings.Contains(err.Error(), "PartialFit input") {
			t.Errorf("%s: PartialFit error %v, want one naming the input", c.name, err)
		}
		after, _ := m.State()
		if !equalStates(t, before, after) {
			t.Errorf("%s: a failed PartialFit changed the model", c.name)
		}
	}
	// A class with fewer than K samples in the whole source is learned
	// from them at the end of the epoch.
	m := mustNew(t, testOpts)
	l := append([]int(nil), ltr...)
	l[0] = 99
	if err := m.Fit(ctx, &stream.Dense{Y: Ytr, Labels: l}); err != nil {
		t.Fatal(err)
	}
	if cl := m.Classes(); len(cl) != 5 || cl[4] != 99 || len(m.Pending()) != 0 {
		t.Errorf("a class of one sample: classes %v, pending %v", cl, m.Pending())
	}
	if _, err := New(Options{Method: "FDDL", K0: 5}); err == nil {
		t.Errorf("FDDL with K0 = 5: no error")
	}
	if _, err := New(Options{Lambda1: -1}); err == nil {
		t.Errorf("Lambda1 = −1: no error")
	}
}

// TestCancel checks that cancelling from the progress callback stops Fit
// with ctx.Err() and leaves the model untrained, that progress counts
// samples, and that the options given are not modified.
func TestCancel(t *testing.T) {
	Ytr, ltr, _, _ := faces(4, 40)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var last Progress
	calls := 0
	o := testOpts
	o.Progress = func(p Progress) {
		last = p
		if calls++; calls == 3 {
			cancel()
		}
	}
	m := mustNew(t, o)
	err := m.Fit(ctx, &stream.Dense{Y: Ytr, Labels: ltr, Size: 50})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Fit after cancel: %v", err)
	}
	if calls != 3 {
		t.Errorf("progress called %d times after cancelling at the third", calls)
	}
	if last.Epoch != 1 || last.EpochSeen != 90 || last.ETA <= 0 {
		t.Errorf("last progress %+v, want epoch 1, 90 samples of the epoch and an ETA", last)
	}
	if _, err := m.State(); err == nil {
		t.Errorf("a cancelled Fit left a trained model")
	}
	// PartialFit cancelled after its first minibatch leaves a trained
	// model as it was.
	m2 := mustNew(t, testOpts)
	if err := m2.PartialFit(context.Background(), Ytr, ltr); err != nil {
		t.Fatal(err)
	}
	before, _ := m2.State()
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	m2.opts.Progress = func(Progress) { cancel2() }
	if err := m2.PartialFit(ctx2, Ytr, ltr); !errors.Is(err, context.Canceled) {
		t.Fatalf("PartialFit after cancel: %v", err)
	}
	if after, _ := m2.State(); !equalStates(t, before, after) {
		t.Errorf("a cancelled PartialFit changed the model")
	}
	if m.Options().K0 != 3 || m.Options().Lambda1 != 0 || m.Resolved().Lambda1 != 0.01 || m.Resolved().Forget != 3 {
		t.Errorf("options %+v, resolved %+v", m.Options(), m.Resolved())
	}
}

// TestFitFromDisk trains from a directory of .npy shards and checks that
// a shard truncated after the directory was opened stops Fit with an
// error naming it, leaving the model as it was.
func TestFitFromDisk(t *testing.T) {
	dir := t.TempDir()
	src := &stream.FaceLike{C: 5, D: 30, N: 400, Chunk: 100, Seed: 1, SampleSeed: 2}
	for i := 0; ; i++ {
		c, err := src.Next(context.Background())
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range []struct {
			name  string
			write func(io.Writer) error
		}{
			{fmt.Sprintf("X_%d.npy", i), func(w io.Writer) error { return stream.WriteNPY(w, c.Y, true) }},
			{fmt.Sprintf("y_%d.npy", i), func(w io.Writer) error { return stream.WriteLabelsNPY(w, c.Labels) }},
		} {
			fh, err := os.Create(filepath.Join(dir, f.name))
			if err != nil {
				t.Fatal(err)
			}
			if err := f.write(fh); err != nil {
				t.Fatal(err)
			}
			fh.Close()
		}
	}
	d, err := stream.OpenDir(dir, 64)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	m := mustNew(t, Options{K: 5, K0: 3, Batch: 50, Epochs: 2})
	if err := m.Fit(context.Background(), d); err != nil {
		t.Fatal(err)
	}
	test := &stream.FaceLike{C: 5, D: 30, N: 200, Chunk: 200, Seed: 1, SampleSeed: 9}
	c, _ := test.Next(context.Background())
	if a := accuracy(t, m, c.Y, c.Labels, nil); a < 90 {
		t.Errorf("accuracy %.2f%% after training from disk", a)
	}
	before, _ := m.State()
	p := filepath.Join(dir, "X_2.npy")
	fi, _ := os.Stat(p)
	if err := os.Truncate(p, fi.Size()-1000); err != nil {
		t.Fatal(err)
	}
	if err := m.Fit(context.Background(), d); err == nil || !strings.Contains(err.Error(), "X_2.npy is truncated") {
		t.Errorf("Fit over a truncated shard: %v", err)
	}
	after, _ := m.State()
	if !equalStates(t, before, after) {
		t.Errorf("a failed Fit changed the model")
	}
}
