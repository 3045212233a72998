package eval

import (
	"context"
	"fmt"
	"hash/fnv"
	"runtime"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/core"
	"github.com/lrsdl/lrsdl/internal/cvhook"
	"github.com/lrsdl/lrsdl/internal/parallel"
	"github.com/lrsdl/lrsdl/split"
)

// cvJob is one candidate of a round of CrossValidateSet: its training
// options tp, its fits by fold (suspended fits to resume, or nil) and the
// grid points idx it scores.
type cvJob struct {
	ctx    context.Context
	tp     Params
	models []lrsdl.Classifier
	idx    []int
}

// roundOut is what a round of cross-validation measured of one job: by
// grid point of its idx, the mean validation accuracy and a hash of the
// predictions on each fold.
type roundOut struct {
	acc   []float64
	preds [][]uint64
}

// crossValidateRound trains every job's options (it outer iterations) on
// every fold and returns, by job, the mean validation accuracy of each of
// its grid points pts[i], i in idx, and hashes of their predictions, setting their prediction options on
// the fit. The fits of all jobs and folds share one pool of GOMAXPROCS
// goroutines, taken job by job, so that a round of many candidates keeps
// both cores busy where the folds of one candidate would leave one idle,
// and a job's fold f starts after the previous job's, whose span factors
// it shares (see foldScores). models[f], if not nil, is fold f's
// suspended fit of the same options at fewer iterations, which is resumed
// instead; the fits of resumable methods are left in models. Each fit is
// independent, so the result does not depend on the order.
func crossValidateRound(newClassifier NewFunc, jobs []cvJob, it int, pts []Params, trains, vals []split.Set) ([]roundOut, error) {
	k := len(trains)
	accs := make([][]float64, len(jobs)*k)
	hashes := make([][]uint64, len(jobs)*k)
	err := core.ForEach(len(jobs)*k, runtime.GOMAXPROCS(0), func(_, i int) error {
		j, f := &jobs[i/k], i%k
		fctx := withStage(j.ctx, func(s *Stage) { s.Fold = f + 1 })
		var err error
		parallel.Job(func() {
			accs[i], hashes[i], j.models[f], err = foldScores(fctx, newClassifier, j.models[f], j.tp, it, pts, j.idx, trains[f], vals[f])
		})
		if err != nil {
			return fmt.Errorf("cross-validation at %v, fold %d: %w", j.tp, f+1, err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]roundOut, len(jobs))
	for ji, j := range jobs {
		o := roundOut{acc: make([]float64, len(j.idx)), preds: make([][]uint64, len(j.idx))}
		for f := range k {
			for p := range j.idx {
				o.acc[p] += accs[ji*k+f][p] / float64(k)
				o.preds[p] = append(o.preds[p], hashes[ji*k+f][p])
			}
		}
		out[ji] = o
	}
	return out, nil
}

// foldScores fits one classifier on train with the options tp (or resumes
// prev, a suspended fit of them, to it outer iterations) and returns the
// accuracy on val of each grid point pts[i], i in idx, whose remaining
// (prediction) options it sets before predicting, and a hash of its
// predictions. A resumable method (cvhook.Of) fits score-only, scores
// every point from its training state in one call, and its fit is
// returned, to be resumed later and so that the fits of one fold, holding
// it, share its span factors.
func foldScores(ctx context.Context, newClassifier NewFunc, prev lrsdl.Classifier, tp Params, it int, pts []Params, idx []int, train, val split.Set) ([]float64, []uint64, lrsdl.Classifier, error) {
	c := prev
	if h := cvhook.Of(prev); h != nil {
		notifyStage(ctx, c)
		if err := h.Resume(ctx, train.Y, train.Labels, it); err != nil {
			return nil, nil, nil, err
		}
	} else {
		var err error
		if c, err = newClassifier(); err != nil {
			return nil, nil, nil, err
		}
		if err := Configure(c, tp); err != nil {
			return nil, nil, nil, err
		}
		if h := cvhook.Of(c); h != nil {
			h.SetScoreOnly(true)
		}
		notifyStage(ctx, c)
		if err := c.Fit(ctx, train.Y, train.Labels); err != nil {
			return nil, nil, nil, err
		}
	}
	pps := make([]Params, len(idx))
	for j, i := range idx {
		pps[j] = Params{}
		for n, v := range pts[i] {
			if _, ok := tp[n]; !ok {
				pps[j][n] = v
			}
		}
	}
	out, hs := make([]float64, len(idx)), make([]uint64, len(idx))
	if h := cvhook.Of(c); h != nil {
		sets := make([]map[string]string, len(pps))
		for j, pp := range pps {
			sets[j] = map[string]string{}
			for n, v := range pp {
				sets[j][n] = formatValue(v)
			}
		}
		preds, err := h.ScoreEach(ctx, val.Y, sets)
		if err != nil {
			return nil, nil, nil, err
		}
		for j, pred := range preds {
			out[j], hs[j] = Accuracy(pred, val.Labels), hashLabels(pred)
		}
		return out, hs, c, nil
	}
	for j, pp := range pps {
		if err := Configure(c, pp); err != nil {
			return nil, nil, nil, err
		}
		pred, err := c.Predict(val.Y)
		if err != nil {
			return nil, nil, nil, err
		}
		out[j], hs[j] = Accuracy(pred, val.Labels), hashLabels(pred)
	}
	return out, hs, nil, nil
}

// hashLabels returns the FNV-1a hash of labels.
func hashLabels(labels []int) uint64 {
	h := fnv.New64a()
	var b [8]byte
	for _, l := range labels {
		for i := range b {
			b[i] = byte(uint64(l) >> (8 * i))
		}
		h.Write(b[:])
	}
	return h.Sum64()
}
