package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/methods"
	"github.com/lrsdl/lrsdl/online"
	"github.com/lrsdl/lrsdl/stream"
)

// streamFlags are train's options for minibatch training streamed from
// disk (-batch B > 0): the data stay on disk and are read a shard or chunk
// at a time, so memory does not grow with the number of samples.
type streamFlags struct {
	batch, epochs int
	labels        string
}

func (s *streamFlags) register(fs interface {
	IntVar(*int, string, int, string)
	StringVar(*string, string, string, string)
}) {
	fs.IntVar(&s.batch, "batch", 0, "minibatch training streamed from disk (LRSDL, FDDL) with `B` samples per minibatch; -data is then a directory of shards (X_*.npy with y_*.npy, or .npz with fea and gnd) or one .npy of samples as rows with -labels")
	fs.IntVar(&s.epochs, "epochs", 0, "passes over the data with -batch (default 5)")
	fs.StringVar(&s.labels, "labels", "", "with -batch and a .npy -data: the .npy `file` of its labels")
}

// onlineOptions maps the -p options that minibatch training knows to
// online.Options; any other is an error naming it.
func onlineOptions(method string, mf *methodFlags, s *streamFlags) (online.Options, error) {
	o := online.Options{Method: strings.ToUpper(method), Batch: s.batch, Epochs: s.epochs, Seed: mf.seed}
	if o.Method != "LRSDL" && o.Method != "FDDL" {
		return o, usagef("-batch: minibatch training is for LRSDL and FDDL, not %s", method)
	}
	if s.epochs < 0 {
		return o, usagef("-epochs %d: want N ≥ 1", s.epochs)
	}
	for name, v := range mf.params {
		text := fmt.Sprint(v)
		f, err := strconv.ParseFloat(text, 64)
		if err != nil {
			return o, usagef("-p %s=%s: not a number", name, text)
		}
		if (name == "k" || name == "k0" || name == "x_iters") && f != math.Trunc(f) {
			return o, usagef("-p %s=%s: want a whole number", name, text)
		}
		off := func(x float64) float64 { // a literal 0 is Off: the zero value means the default
			if x == 0 {
				return online.Off
			}
			return x
		}
		switch name {
		case "k":
			o.K = int(f)
		case "k0":
			o.K0 = int(off(f))
		case "lambda1":
			o.Lambda1 = f
		case "lambda2":
			o.Lambda2 = off(f)
		case "eta":
			o.Eta = off(f)
		case "x_iters":
			o.XIters = int(f)
		default:
			return o, usagef("-p %s: minibatch training takes k, k0, lambda1, lambda2, eta and x_iters", name)
		}
	}
	return o, nil
}

// openStream opens -data as a stream of chunks.
func openStream(path string, s *streamFlags, normalize bool) (stream.Source, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	var src stream.Source
	switch {
	case st.IsDir():
		src, err = stream.OpenDir(path, 0)
	case strings.HasSuffix(strings.ToLower(path), ".npy"):
		if s.labels == "" {
			return nil, usagef("-data %s: a .npy of samples needs -labels FILE.npy with -batch", path)
		}
		src, err = stream.OpenNPY(path, s.labels, 0)
	default:
		return nil, usagef("-data %s: with -batch, give a directory of shards or a .npy file", path)
	}
	if err != nil {
		return nil, err
	}
	if normalize {
		src = stream.Normalized{S: src}
	}
	return src, nil
}

// runTrainStream trains method by minibatches streamed from path and
// writes the model to out; nothing is written when training fails.
func runTrainStream(ctx context.Context, e *env, method, path, out string, normalize bool, mf *methodFlags, s *streamFlags) error {
	o, err := onlineOptions(method, mf, s)
	if err != nil {
		return err
	}
	src, err := openStream(path, s, normalize)
	if err != nil {
		return err
	}
	of, err := createOut(e.rep, "o", out, "-data", path, "-labels", s.labels)
	if err != nil {
		return err
	}
	defer of.abort()
	t0 := time.Now()
	// One line per epoch and at most one every ten seconds within it: a
	// large stream has thousands of minibatches.
	epoch, last := 0, time.Time{}
	o.Progress = func(p online.Progress) {
		if p.Epoch == epoch && time.Since(last) < 10*time.Second {
			return
		}
		epoch, last = p.Epoch, time.Now()
		eta := ""
		if p.ETA > 0 {
			eta = fmt.Sprintf(", epoch ends in %s", p.ETA.Round(time.Second))
		}
		e.rep.event("epoch %d: %d samples seen, %d minibatches%s", p.Epoch, p.Seen, p.Batches, eta)
	}
	m, err := online.New(o)
	if err != nil {
		return usagef("%v", err)
	}
	if err := m.Fit(ctx, src); err != nil {
		return err
	}
	st, err := m.State()
	if err != nil {
		return err
	}
	if !normalize && len(st.Options) > 1 && st.Options[0] == '{' && !bytes.Contains(st.Options, []byte(`"no_normalize"`)) {
		// The model was trained on the samples as given: it must not scale
		// the samples it classifies either.
		sep := ","
		if string(st.Options) == "{}" {
			sep = ""
		}
		st.Options = append([]byte(`{"no_normalize":true`+sep), st.Options[1:]...)
	}
	// The file holds the batch method's model, which predict reads as any
	// LRSDL or FDDL model, and the minibatch statistics, with which
	// online.Model.SetState resumes training exactly.
	c, err := methods.New(st.Method)
	if err != nil {
		return err
	}
	if err := c.SetState(st); err != nil {
		return err
	}
	if err := of.commit(func(w io.Writer) error { return methods.Save(w, c) }); err != nil {
		return err
	}
	seen, batches := m.Seen()
	fmt.Fprintf(e.stdout, "trained %s by minibatches on %d samples (%d minibatches, %d classes) from %s in %.3gs (%s); model written to %s\n",
		st.Method, seen, batches, len(m.Classes()), path, time.Since(t0).Seconds(), lrsdl.Backend(), out)
	fmt.Fprintf(e.stdout, "%s\n", normalizeNote(normalize))
	return nil
}
