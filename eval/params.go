package eval

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
)

// Params are method options by JSON name, e.g. {"lambda1": 0.01}.
// Values are float64, bool or string.
type Params map[string]any

// String formats p as "name=value,..." in sorted order of name.
func (p Params) String() string {
	var s []string
	for _, k := range p.names() {
		s = append(s, fmt.Sprintf("%s=%v", k, p[k]))
	}
	return strings.Join(s, ",")
}

func (p Params) names() []string {
	ns := make([]string, 0, len(p))
	for k := range p {
		ns = append(ns, k)
	}
	sort.Strings(ns)
	return ns
}

// ParseParams parses "name=value,name=value". A value is a number, true,
// false or else a string.
func ParseParams(s string) (Params, error) {
	p := Params{}
	for _, kv := range strings.Split(s, ",") {
		kv = strings.TrimSpace(kv)
		if kv == "" {
			continue
		}
		if err := p.Set(kv); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// Set parses one "name=value" into p.
func (p Params) Set(kv string) error {
	k, v, ok := strings.Cut(kv, "=")
	k, v = strings.TrimSpace(k), strings.TrimSpace(v)
	if !ok || k == "" || v == "" {
		return fmt.Errorf("option %q: want name=value", kv)
	}
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		p[k] = f
	} else if b, err := strconv.ParseBool(v); err == nil {
		p[k] = b
	} else {
		p[k] = v
	}
	return nil
}

// configurable returns c as an lrsdl.Configurable, or an error naming c.
func configurable(c lrsdl.Classifier) (lrsdl.Configurable, error) {
	cf, ok := c.(lrsdl.Configurable)
	if !ok {
		return nil, fmt.Errorf("method %s has no options to set", c.Name())
	}
	return cf, nil
}

// ParamNames returns the names of c's options in sorted order, or nil
// when c is not lrsdl.Configurable.
func ParamNames(c lrsdl.Classifier) []string {
	cf, err := configurable(c)
	if err != nil {
		return nil
	}
	var ns []string
	for _, p := range cf.Params() {
		ns = append(ns, p.Name)
	}
	sort.Strings(ns)
	return ns
}

// Configure sets the options of c named in p, in sorted order of name,
// through lrsdl.Configurable.SetParam: values are literal (0 is 0, not the
// default). It returns the first error, which names the option.
func Configure(c lrsdl.Classifier, p Params) error {
	if len(p) == 0 {
		return nil
	}
	cf, err := configurable(c)
	if err != nil {
		return err
	}
	for _, k := range p.names() {
		if err := cf.SetParam(k, formatValue(p[k])); err != nil {
			return err
		}
	}
	return nil
}

// formatValue returns the text of a Params value that parses back to it.
func formatValue(v any) string {
	switch v := v.(type) {
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	case int:
		return strconv.Itoa(v)
	}
	return fmt.Sprint(v)
}

// SetProgress sets c's progress callback to f and reports whether c has one.
func SetProgress(c lrsdl.Classifier, f lrsdl.ProgressFunc) bool {
	cf, err := configurable(c)
	if err != nil {
		return false
	}
	cf.SetProgress(f)
	return true
}

// CurrentParams returns c's options as Params: numbers as float64, bools
// as bool, and an option still at its default as its documented default
// (a number, or text such as "min(20, smallest class)"). After Fit they
// are the resolved values.
func CurrentParams(c lrsdl.Classifier) Params {
	cf, err := configurable(c)
	if err != nil {
		return nil
	}
	p := Params{}
	for _, q := range cf.Params() {
		v := q.Value
		if v == "" {
			v = q.Default
		}
		if f, err := strconv.ParseFloat(v, 64); err == nil && q.Type != "bool" {
			p[q.Name] = f
		} else if b, err := strconv.ParseBool(v); err == nil && q.Type == "bool" {
			p[q.Name] = b
		} else {
			p[q.Name] = v
		}
	}
	return p
}

// FitTrace trains c on (Y, labels) and returns the progress of every outer
// iteration (cost terms and elapsed time), for cost-against-time curves.
// It fails if c reports no progress.
func FitTrace(ctx context.Context, c lrsdl.Classifier, Y mat.Matrix, labels []int, also lrsdl.ProgressFunc) ([]lrsdl.Progress, error) {
	var trace []lrsdl.Progress
	if !SetProgress(c, func(p lrsdl.Progress) {
		trace = append(trace, p)
		if also != nil {
			also(p)
		}
	}) {
		return nil, fmt.Errorf("method %s reports no progress", c.Name())
	}
	defer SetProgress(c, nil)
	if err := c.Fit(ctx, Y, labels); err != nil {
		return trace, err
	}
	if len(trace) == 0 {
		return nil, fmt.Errorf("method %s reported no iteration", c.Name())
	}
	return trace, nil
}
