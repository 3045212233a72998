package online

import (
	"fmt"
	"math"
	"time"

	"github.com/lrsdl/lrsdl/methods"
)

// Off, set in an Options field whose zero value means a non-zero default,
// requests the literal value 0 (K0, Lambda2, Eta, Forget).
const Off = methods.Off

// Options configures minibatch training. The zero value of a field means
// the default written beside it. Fit and PartialFit never modify the
// Options they are given; Model.Resolved reports the values in use.
type Options struct {
	// Method is "LRSDL" or "FDDL" (LRSDL with k0 = 0); "" means LRSDL.
	Method string
	Batch  int // samples per minibatch; zero means 256
	Epochs int // passes of Fit over its source; zero means 5
	// Forget is the exponent ρ of the forgetting factor β_t = (1 − 1/t)^ρ
	// applied to the statistics before batch t adds its own; zero means 3,
	// Off keeps every batch at full weight (β = 1).
	Forget  float64
	K       int     // atoms per class; zero means 10
	K0      int     // shared atoms (LRSDL); zero means 10, Off none
	Lambda1 float64 // ℓ1 weight λ1 > 0; zero means 0.01
	Lambda2 float64 // Fisher weight λ2; zero means 0.01, Off 0
	Eta     float64 // nuclear-norm weight η of D0; zero means 0.1, Off 0
	// XIters caps the FISTA iterations of an X step; zero means 20.
	XIters int
	// OwnIters is the number of FISTA iterations of a first pass of the X
	// step restricted to each sample's own class atoms (and the shared
	// ones), whose result starts the XIters iterations on all atoms; zero
	// means XIters, Off starts from zero codes.
	OwnIters int
	// DIters caps the ODL sweeps of a dictionary step; zero means 5.
	DIters int
	// ADMMIters caps the ADMM iterations of a D0 step; zero means 20.
	ADMMIters int
	Seed      uint64
	// Progress, if not nil, is called after every minibatch.
	Progress func(Progress)
}

// Progress describes training after one minibatch.
type Progress struct {
	Epoch     int           // pass of Fit over its source, from 1; 0 in PartialFit
	Batches   int64         // minibatches trained by the model so far
	Seen      int64         // samples trained on by the model so far
	EpochSeen int64         // samples of this call's current epoch so far
	Elapsed   time.Duration // since the call started
	// ETA estimates the time to the end of the epoch; 0 when the source
	// does not report its length (stream.Lener).
	ETA time.Duration
}

// params are resolved options, with literal values.
type params struct {
	lrsdl                   bool
	batch, epochs           int
	forget                  float64
	k, k0                   int
	lambda1, lambda2, eta   float64
	xIters, dIters, admmIts int
	ownIters                int
	seed                    uint64
}

// resolve returns the options with defaults filled in, and their literal
// parameters.
func (o Options) resolve() (Options, params, error) {
	r := o
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	deff := func(v *float64, d float64) {
		if *v == 0 {
			*v = d
		}
	}
	switch r.Method {
	case "", "LRSDL":
		r.Method = "LRSDL"
		def(&r.K0, 10)
		deff(&r.Eta, 0.1)
	case "FDDL":
		if r.K0 > 0 || r.Eta > 0 {
			return r, params{}, fmt.Errorf("online: FDDL has no shared dictionary, have K0=%d, Eta=%v", r.K0, r.Eta)
		}
		r.K0, r.Eta = Off, Off
	default:
		return r, params{}, fmt.Errorf("online: unknown method %q (LRSDL or FDDL)", r.Method)
	}
	def(&r.Batch, 256)
	def(&r.Epochs, 5)
	deff(&r.Forget, 3)
	def(&r.K, 10)
	deff(&r.Lambda1, 0.01)
	deff(&r.Lambda2, 0.01)
	def(&r.XIters, 20)
	def(&r.OwnIters, r.XIters)
	def(&r.DIters, 5)
	def(&r.ADMMIters, 20)
	p := params{lrsdl: r.Method == "LRSDL", batch: r.Batch, epochs: r.Epochs, forget: litf(r.Forget),
		k: r.K, k0: liti(r.K0), lambda1: r.Lambda1, lambda2: litf(r.Lambda2), eta: litf(r.Eta),
		xIters: r.XIters, dIters: r.DIters, admmIts: r.ADMMIters, ownIters: liti(r.OwnIters), seed: r.Seed}
	bad := func(name string, v any, want string) error {
		return fmt.Errorf("online: option %s=%v: must be %s", name, v, want)
	}
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	switch {
	case p.batch < 1:
		return r, p, bad("Batch", r.Batch, "≥ 1")
	case p.epochs < 1:
		return r, p, bad("Epochs", r.Epochs, "≥ 1")
	case !(p.forget >= 0) || !finite(p.forget):
		return r, p, bad("Forget", r.Forget, "≥ 0 or Off")
	case p.k < 1:
		return r, p, bad("K", r.K, "≥ 1")
	case p.k0 < 0:
		return r, p, bad("K0", r.K0, "≥ 0 or Off")
	case !(p.lambda1 > 0) || !finite(p.lambda1):
		return r, p, bad("Lambda1", r.Lambda1, "> 0")
	case !(p.lambda2 >= 0) || !finite(p.lambda2):
		return r, p, bad("Lambda2", r.Lambda2, "≥ 0 or Off")
	case !(p.eta >= 0) || !finite(p.eta):
		return r, p, bad("Eta", r.Eta, "≥ 0 or Off")
	case p.ownIters < 0:
		return r, p, bad("OwnIters", r.OwnIters, "≥ 0 or Off")
	case p.xIters < 1 || p.dIters < 1 || p.admmIts < 1:
		return r, p, fmt.Errorf("online: XIters=%d, DIters=%d, ADMMIters=%d: each must be ≥ 1", r.XIters, r.DIters, r.ADMMIters)
	}
	return r, p, nil
}

func liti(v int) int {
	if v == Off {
		return 0
	}
	return v
}

func litf(v float64) float64 {
	if v == Off {
		return 0
	}
	return v
}

// beta returns the forgetting factor (1 − 1/t)^ρ of batch t ≥ 1.
func (p *params) beta(t int64) float64 {
	return math.Pow(1-1/float64(t), p.forget)
}
