package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/eval"
)

// predictions is the JSON form of 'lrsdl predict -o FILE.json'.
type predictions struct {
	Method    string `json:"method"`
	Model     string `json:"model"`
	Data      string `json:"data"`
	Set       string `json:"set"` // "test", "train" or "all"
	Normalize bool   `json:"normalize"`
	Predicted []int  `json:"predicted"`
	Labels    []int  `json:"labels,omitempty"`
}

func runPredict(ctx context.Context, e *env, args []string) error {
	fs := flagSet(e, "predict")
	var df dataFlags
	df.register(fs, true, false, true)
	memoryFlag(fs)
	e.progressFlags(fs)
	fs.Lookup("q").Usage = "quiet: no progress on stderr and no confusion matrix, only results and errors"
	fs.Lookup("v").Usage = "verbose: also how the data file's variables were chosen"
	confusion := fs.Bool("confusion", true, "print the confusion matrix of labelled data (default false with -q)")
	model := fs.String("model", "", "model `file` written by 'lrsdl train'")
	out := fs.String("o", "", "write one predicted label per sample to this `file`: .json, or else CSV (sample, predicted[, label]); - for stdout"+outputDoc)
	which := fs.String("set", "test", "samples to classify: `test` (the test set of a train/test file, else all samples) or train")
	if err := parse(e, fs, args); err != nil {
		return err
	}
	if e.rep.quiet && !isSet(fs, "confusion") {
		*confusion = false
	}
	switch {
	case *model == "":
		return usagef("missing -model MODEL")
	case df.path == "":
		return usagef("missing -data FILE")
	case *which != "test" && *which != "train":
		return usagef("-set %q: want test or train", *which)
	}
	var of *outFile
	if *out != "" && *out != "-" {
		var err error
		if of, err = createOut(e.rep, "o", *out, "-model", *model, "-data", df.path); err != nil {
			return err
		}
		defer of.abort()
	}
	c, err := loadModel(*model)
	if err != nil {
		return err
	}
	// New samples are prepared as the training samples were.
	df.normalize = normalizes(c)
	noLabelsFlag := df.noLabels
	ds, err := df.load(ctx, e.rep)
	if err != nil && !df.noLabels && missingLabels(err) {
		// New data need no labels.
		df.noLabels = true
		if ds, err = df.load(ctx, e.rep); err == nil {
			e.rep.event("%s has no labels: classifying unlabelled samples", df.path)
		}
	}
	if err != nil {
		return err
	}
	set, s := "test", ds.Test
	switch {
	case s.Y == nil:
		set, s = "all", ds.Train
	case *which == "train":
		set, s = "train", ds.Train
	}
	labelled := s.Labels != nil
	what := map[string]string{
		"test":  fmt.Sprintf("the %d samples of the test set of %s", s.Len(), df.path),
		"train": fmt.Sprintf("the %d samples of the training set of %s", s.Len(), df.path),
		"all":   fmt.Sprintf("all %d samples of %s", s.Len(), df.path),
	}[set]
	prep := "used as they are (the model was trained on data not normalised)"
	if df.normalize {
		prep = "scaled to unit ℓ2 norm, as the model's training samples were"
	}
	e.rep.event("%s: classifying %s with the model %s", c.Name(), what, *model)
	done := e.rep.ticker(fmt.Sprintf("%s predict: %d samples", c.Name(), s.Len()))
	t0 := time.Now()
	pred, err := predict(ctx, c, s.Y)
	done()
	if err != nil {
		if !df.noLabels && isCSV(df.path) && strings.Contains(err.Error(), "dimension") {
			return fmt.Errorf("%s: %w (if its last column is a feature, not a label, give -no-labels)", df.path, err)
		}
		return fmt.Errorf("%s: %w", df.path, err)
	}
	took := time.Since(t0)
	if len(pred) != s.Len() {
		return fmt.Errorf("%s predicted %d labels for %d samples", c.Name(), len(pred), s.Len())
	}
	res := predictions{Method: c.Name(), Model: *model, Data: df.path, Set: set, Normalize: df.normalize, Predicted: pred}
	if labelled {
		res.Labels = s.Labels
	}
	report := e.stdout
	if *out == "-" || *out == "" && !labelled {
		// Predictions go to stdout; the summary to stderr.
		report = e.stderr
		if e.rep.quiet {
			report = io.Discard
		}
		if err := writePredictions(e.stdout, *out, res); err != nil {
			return err
		}
	}
	fmt.Fprintf(report, "classified %s with %s in %.3gs (%.3g ms/sample)\nsamples %s\n", what, c.Name(),
		took.Seconds(), 1e3*took.Seconds()/float64(max(1, s.Len())), prep)
	switch {
	case !labelled && noLabelsFlag:
		fmt.Fprintf(report, "labels not read (-no-labels): no accuracy\n")
	case !labelled:
		fmt.Fprintf(report, "%s has no labels: no accuracy\n", df.path)
	case set == "all":
		fmt.Fprintf(report, "accuracy %.2f%% on all samples of the file: one data matrix, not a held-out test set (it may include the training samples)\n", 100*eval.Accuracy(pred, s.Labels))
	default:
		fmt.Fprintf(report, "accuracy %.2f%% on the %s set\n", 100*eval.Accuracy(pred, s.Labels), set)
	}
	if labelled && *confusion {
		fmt.Fprintf(report, "confusion matrix (rows: true label, columns: predicted):\n%s", eval.NewConfusion(s.Labels, pred))
	}
	if of != nil {
		if err := of.commit(func(w io.Writer) error { return writePredictions(w, *out, res) }); err != nil {
			return err
		}
		fmt.Fprintf(report, "predictions written to %s\n", *out)
	}
	return nil
}

// writePredictions writes one line per sample to w, as JSON if path ends
// in .json, else as CSV.
func writePredictions(w io.Writer, path string, p predictions) error {
	if strings.EqualFold(filepath.Ext(path), ".json") {
		b, err := json.Marshal(p)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", b)
		return err
	}
	cw := csv.NewWriter(w)
	head := []string{"sample", "predicted"}
	if p.Labels != nil {
		head = append(head, "label")
	}
	cw.Write(head)
	for i, l := range p.Predicted {
		rec := []string{strconv.Itoa(i), strconv.Itoa(l)}
		if p.Labels != nil {
			rec = append(rec, strconv.Itoa(p.Labels[i]))
		}
		cw.Write(rec)
	}
	cw.Flush()
	return cw.Error()
}

// normalizes reports whether m scales its samples to unit ℓ2 norm (its
// option no_normalize is unset), as its training samples then were.
func normalizes(m lrsdl.Model) bool {
	for _, p := range m.Params() {
		if p.Name == "no_normalize" {
			off, _ := strconv.ParseBool(p.Value)
			return !off
		}
	}
	return false
}

// isSet reports whether the flag name was given on the command line.
func isSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// isCSV reports whether path names a CSV file, whose last column the
// command reads as labels.
func isCSV(path string) bool {
	p := strings.ToLower(path)
	return strings.HasSuffix(p, ".csv") || strings.HasSuffix(p, ".csv.gz")
}
