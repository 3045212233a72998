package methods

import (
	"encoding/json"
	"fmt"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/core"
	"github.com/lrsdl/lrsdl/methods/internal/dl"
)

// decodeState checks that s is a state of the named method with at least
// 2 increasing class labels and the named finite, non-empty matrices, and
// decodes its options into opts, whose ranges it checks. It returns the
// classes.
func decodeState(s *lrsdl.State, method string, opts interface{ spec() optSpec }, matrices ...string) (*core.Classes, error) {
	switch {
	case s == nil:
		return nil, fmt.Errorf("methods: nil %s state", method)
	case s.Method != method:
		return nil, fmt.Errorf("methods: state is for method %q, not %s", s.Method, method)
	case len(s.Classes) < 2:
		return nil, fmt.Errorf("methods: %s state has %d classes, need at least 2", method, len(s.Classes))
	}
	for i := 1; i < len(s.Classes); i++ {
		if s.Classes[i] <= s.Classes[i-1] {
			return nil, fmt.Errorf("methods: %s state class labels are not increasing at %d", method, i)
		}
	}
	if err := json.Unmarshal(s.Options, opts); err != nil {
		return nil, fmt.Errorf("methods: %s state options: %v", method, err)
	}
	if err := opts.spec().resolve(nil); err != nil {
		return nil, fmt.Errorf("%v (in the model's state)", err)
	}
	for _, name := range matrices {
		m := s.Matrices[name]
		if m == nil || m.IsEmpty() {
			return nil, fmt.Errorf("methods: %s state has no matrix %q", method, name)
		}
		if err := dl.CheckFinite(fmt.Sprintf("%s state matrix %q", method, name), m); err != nil {
			return nil, err
		}
	}
	return core.ClassesOf(s.Classes), nil
}
