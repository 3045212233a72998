package eval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
)

// Configurable is implemented by methods whose options can be set by name:
// Config returns a pointer to the method's Options struct, whose fields
// carry JSON tags ("lambda1", "k", "seed", ...).
type Configurable interface {
	Config() any
}

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

// options returns the Options struct of c, or nil.
func options(c lrsdl.Classifier) reflect.Value {
	cf, ok := c.(Configurable)
	if !ok {
		return reflect.Value{}
	}
	v := reflect.ValueOf(cf.Config())
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return reflect.Value{}
	}
	return v.Elem()
}

// ParamNames returns the JSON names of c's options in sorted order, or nil
// when c is not Configurable.
func ParamNames(c lrsdl.Classifier) []string {
	v := options(c)
	if !v.IsValid() {
		return nil
	}
	var ns []string
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			switch {
			case tag == "-" || !f.IsExported() && !f.Anonymous:
			case f.Anonymous && tag == "" && f.Type.Kind() == reflect.Struct:
				walk(f.Type)
			case tag != "":
				ns = append(ns, tag)
			default:
				ns = append(ns, f.Name)
			}
		}
	}
	walk(v.Type())
	sort.Strings(ns)
	return ns
}

// Configure sets the options of c named in p, by their JSON names. It
// returns an error naming an unknown option or a value of the wrong type.
func Configure(c lrsdl.Classifier, p Params) error {
	if len(p) == 0 {
		return nil
	}
	names := ParamNames(c)
	if names == nil {
		return fmt.Errorf("method %s has no options to set", c.Name())
	}
	for _, k := range p.names() {
		if i := sort.SearchStrings(names, k); i == len(names) || names[i] != k {
			return fmt.Errorf("method %s has no option %q (have %s)", c.Name(), k, strings.Join(names, ", "))
		}
	}
	b, err := json.Marshal(p)
	if err != nil {
		return fmt.Errorf("method %s: %v", c.Name(), err)
	}
	if err := json.Unmarshal(b, c.(Configurable).Config()); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return fmt.Errorf("method %s: option %s=%v: want a value of type %v", c.Name(), te.Field, p[te.Field], te.Type)
		}
		return fmt.Errorf("method %s: %v", c.Name(), err)
	}
	return nil
}

// SetProgress sets the Progress field of c's options to f and reports
// whether c has one.
func SetProgress(c lrsdl.Classifier, f lrsdl.ProgressFunc) bool {
	v := options(c)
	if !v.IsValid() {
		return false
	}
	fv := v.FieldByName("Progress")
	if !fv.IsValid() || !fv.CanSet() || fv.Type() != reflect.TypeOf(f) {
		return false
	}
	fv.Set(reflect.ValueOf(f))
	return true
}

// CurrentParams returns c's options (those with JSON names) as Params.
func CurrentParams(c lrsdl.Classifier) Params {
	cf, ok := c.(Configurable)
	if !ok {
		return nil
	}
	b, err := json.Marshal(cf.Config())
	if err != nil {
		return nil
	}
	var p Params
	if json.Unmarshal(b, &p) != nil {
		return nil
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
