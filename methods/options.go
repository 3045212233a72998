package methods

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/methods/internal/dl"
)

// Off, set in an Options field whose zero value means a non-zero default,
// requests the literal value 0 (for example LRSDLOptions.Eta: Off trains
// without the nuclear norm). Only options whose range includes 0 accept it;
// resolved options keep it.
const Off = -1

// lit returns the value an option stands for: 0 for Off, else v.
func lit[T int | float64](v T) T {
	if v == Off {
		return 0
	}
	return v
}

// OptionError reports an option value outside its declared range.
type OptionError struct {
	Method string // method name, e.g. "LRSDL"
	Name   string // option name, e.g. "k0"
	Value  string // the value given
	Reason string // e.g. "must be ≥ 0"
}

// Error returns the message: method, option, value and reason.
func (e *OptionError) Error() string {
	return fmt.Sprintf("methods: %s option %s=%s: %s %s", e.Method, e.Name, e.Value, e.Name, e.Reason)
}

// opt declares one option of an Options struct: the field it sets (one of
// i, f, b, u), its default for a zero value and its range.
type opt struct {
	name, doc string
	i         *int
	f         *float64
	b         *bool
	u         *uint64
	s         *string
	choices   []string               // the values s may take; "" means choices[0]
	def       float64                // value of a zero field
	defDoc    string                 // the default as documented, when not def
	dataDef   func(dl.Info) float64  // data-aware default, overriding def
	defFn     func() float64         // default computed from other options, overriding def
	min, max  float64                // range [min, max]; max 0 means no upper bound
	minOpen   bool                   // range (min, max]
	off       bool                   // Off (a literal 0) allowed: the range includes 0
	perClass  bool                   // at most the samples of the smallest class
	check     func(v float64) string // further condition; returns the reason it fails
	predict   bool                   // acts only at prediction (lrsdl.Param.Predict)
	// zeroAt, if positive, bounds an ℓ1 weight: at or above zeroAt times
	// the largest sample norm every code is 0. With atoms of norm ≤ 1,
	// ‖Dᵀy‖∞ ≤ ‖y‖₂, so zeroAt is 1 for ½‖y − Dx‖² + λ‖x‖₁ and 2 when the
	// fidelity is not halved or is counted twice for the atoms of y's class.
	zeroAt float64
}

// withDefault sets the default of the option called name in opts to the
// constant def, for a method that shares another's options with its own
// default, and returns opts.
func withDefault(opts []opt, name string, def float64) []opt {
	for i := range opts {
		if opts[i].name == name {
			opts[i].def, opts[i].defDoc, opts[i].defFn = def, "", nil
			return opts
		}
	}
	panic("methods: no option " + name)
}

// kOpt declares the atoms per class: by default min(def, samples of the
// smallest class), at most the samples of the smallest class.
func kOpt(k *int, def float64, doc string) opt {
	return opt{name: "k", doc: doc, i: k, def: def, defDoc: "min(" + fmtNum(def) + ", smallest class)",
		min: 1, perClass: true, dataDef: func(d dl.Info) float64 { return min(def, float64(d.MinClass)) }}
}

// seedOpt declares the seed of a method's random initialisation.
func seedOpt(u *uint64) opt { return opt{name: "seed", doc: "seed of the random initialisation", u: u} }

// itersOpt declares the number of outer iterations, by default def.
func itersOpt(i *int, def float64) opt {
	return opt{name: "iters", doc: "outer iterations", i: i, def: def, min: 1}
}

// tolOpt declares dl.RunOuter's relative tolerance on the cost, by default 1e-4.
func tolOpt(f *float64) opt {
	return opt{name: "tol", doc: "stop when the cost changes by less than this, relative (0: run every iteration)", f: f, def: 1e-4, off: true}
}

// lambdaOpt declares the ℓ1 weight of the coding at prediction, by default
// the training weight *train.
func lambdaOpt(f, train *float64) opt {
	return opt{name: "lambda", doc: "ℓ1 weight of the coding at prediction", f: f, defDoc: "lambda1", minOpen: true, predict: true,
		defFn: func() float64 { return *train }, zeroAt: 1}
}

// optSpec is the declaration of a method's options.
type optSpec struct {
	method string
	opts   []opt
}

// value returns the option's current value as a float (0 or 1 for bools).
func (o *opt) value() float64 {
	switch {
	case o.i != nil:
		return float64(*o.i)
	case o.f != nil:
		return *o.f
	case o.b != nil && *o.b:
		return 1
	}
	return 0
}

func (o *opt) numeric() bool { return o.i != nil || o.f != nil }

func (o *opt) set(v float64) {
	switch {
	case o.i != nil:
		*o.i = int(v)
	case o.f != nil:
		*o.f = v
	}
}

func (o *opt) typ() string {
	switch {
	case o.i != nil:
		return "int"
	case o.f != nil:
		return "float"
	case o.b != nil:
		return "bool"
	case o.s != nil:
		return "string"
	}
	return "seed"
}

func fmtNum(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// rangeText is the declared range of o in words.
func (o *opt) rangeText() string {
	if !o.numeric() {
		return ""
	}
	lo := "≥ " + fmtNum(o.min)
	if o.minOpen {
		lo = "> " + fmtNum(o.min)
	}
	s := lo
	if o.max != 0 {
		l := "["
		if o.minOpen {
			l = "("
		}
		s = l + fmtNum(o.min) + ", " + fmtNum(o.max) + "]"
	}
	if o.perClass {
		s += ", at most the samples of the smallest class"
	}
	return s
}

// reason returns why the literal value v is outside o's range, or "".
func (o *opt) reason(v float64, info *dl.Info) string {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return "must be finite"
	case o.i != nil && v != math.Trunc(v):
		return "must be an integer"
	case v < o.min || o.minOpen && v == o.min || o.max != 0 && v > o.max:
		if o.max != 0 {
			return "must be in " + o.rangeText()
		}
		return "must be " + o.rangeText()
	case o.perClass && info != nil && v > float64(info.MinClass):
		return fmt.Sprintf("must be at most %d, the samples of the smallest class", info.MinClass)
	case o.zeroReason(v, info) != "":
		return o.zeroReason(v, info)
	case o.check != nil:
		return o.check(v)
	}
	return ""
}

// zeroReason returns why every code is 0 at the weight v, or "". Norms of
// normalised samples are within 1e-12 of 1, and so is the bound.
func (o *opt) zeroReason(v float64, info *dl.Info) string {
	if o.zeroAt <= 0 || info == nil || info.MaxNorm <= 0 {
		return ""
	}
	b := o.zeroAt * info.MaxNorm
	if v < b*(1-1e-12) {
		return ""
	}
	return fmt.Sprintf("must be below %.4g (%g × %.4g, the largest sample norm): at or above it every code is 0", b, o.zeroAt, info.MaxNorm)
}

// resolve applies the defaults of zero fields and checks every value
// against its range; info, when not nil, gives data-aware defaults and
// bounds. Resolving resolved options changes nothing.
func (s optSpec) resolve(info *dl.Info) error {
	for k := range s.opts {
		o := &s.opts[k]
		if o.s != nil {
			if *o.s == "" {
				*o.s = o.choices[0]
			} else if !slices.Contains(o.choices, *o.s) {
				return &OptionError{Method: s.method, Name: o.name, Value: *o.s, Reason: "must be one of " + strings.Join(o.choices, ", ")}
			}
		}
		if !o.numeric() {
			continue
		}
		v := o.value()
		switch {
		case v == 0 && o.dataDef != nil && info != nil:
			o.set(o.dataDef(*info))
			continue
		case v == 0:
			def, from := o.def, " (the default)"
			if o.defFn != nil {
				def, from = o.defFn(), " ("+o.defDoc+", its default)"
			}
			o.set(def)
			if r := o.zeroReason(def, info); r != "" {
				return &OptionError{Method: s.method, Name: o.name, Value: fmtNum(def) + from, Reason: r}
			}
			continue
		case v == Off && o.off:
			continue
		}
		if r := o.reason(v, info); r != "" {
			return &OptionError{Method: s.method, Name: o.name, Value: fmtNum(v), Reason: r}
		}
	}
	return nil
}

// find returns the option called name.
func (s optSpec) find(name string) (*opt, error) {
	for k := range s.opts {
		if s.opts[k].name == name {
			return &s.opts[k], nil
		}
	}
	names := make([]string, len(s.opts))
	for k, o := range s.opts {
		names[k] = o.name
	}
	return nil, fmt.Errorf("methods: %s has no option %q (have %s)", s.method, name, strings.Join(names, ", "))
}

// set sets the option called name from its literal text value.
func (s optSpec) set(name, text string) error {
	o, err := s.find(name)
	if err != nil {
		return err
	}
	bad := func(reason string) error {
		return &OptionError{Method: s.method, Name: name, Value: text, Reason: reason}
	}
	text = strings.TrimSpace(text)
	switch {
	case o.b != nil:
		b, err := strconv.ParseBool(text)
		if err != nil {
			return bad("must be true or false")
		}
		*o.b = b
		return nil
	case o.s != nil:
		if !slices.Contains(o.choices, text) {
			return bad("must be one of " + strings.Join(o.choices, ", "))
		}
		*o.s = text
		return nil
	case o.u != nil:
		u, err := strconv.ParseUint(text, 10, 64)
		if err != nil {
			return bad("must be an integer ≥ 0")
		}
		*o.u = u
		return nil
	}
	v, err := strconv.ParseFloat(text, 64)
	if err != nil {
		if o.i != nil {
			return bad("must be an integer")
		}
		return bad("must be a number")
	}
	if v == 0 && o.off {
		o.set(Off)
		return nil
	}
	if r := o.reason(v, nil); r != "" {
		return bad(r)
	}
	if o.i != nil && math.Abs(v) > math.MaxInt32 {
		return bad("is too large")
	}
	o.set(v)
	return nil
}

// params lists the options with their current values.
func (s optSpec) params() []lrsdl.Param {
	ps := make([]lrsdl.Param, len(s.opts))
	for k := range s.opts {
		o := &s.opts[k]
		p := lrsdl.Param{Name: o.name, Type: o.typ(), Range: o.rangeText(), Doc: o.doc, Default: o.defDoc, Predict: o.predict}
		switch {
		case o.b != nil:
			p.Value = strconv.FormatBool(*o.b)
			if p.Default == "" {
				p.Default = "false"
			}
		case o.s != nil:
			p.Value = *o.s
			p.Range = "one of " + strings.Join(o.choices, ", ")
			if p.Default == "" {
				p.Default = o.choices[0]
			}
		case o.u != nil:
			p.Value = strconv.FormatUint(*o.u, 10)
			if p.Default == "" {
				p.Default = "0"
			}
		default:
			switch v := o.value(); v {
			case 0:
			case Off:
				if o.off {
					p.Value = "0"
					break
				}
				p.Value = fmtNum(v)
			default:
				p.Value = fmtNum(v)
			}
			if p.Default == "" {
				p.Default = fmtNum(o.def)
			}
		}
		ps[k] = p
	}
	return ps
}

// normOpt declares NoNormalize: by default every sample given to Fit,
// Predict, DecisionFunction, PredictProba and Transform is scaled to unit
// ℓ2 norm first.
func normOpt(b *bool) opt {
	return opt{name: "no_normalize", doc: "use the samples as given instead of scaling them to unit ℓ2 norm", b: b}
}
