package cvhook_test

import (
	"testing"

	"github.com/lrsdl/lrsdl/internal/cvhook"
	"github.com/lrsdl/lrsdl/methods"
)

// TestOf checks that exactly the Fisher models of package methods have the
// plumbing.
func TestOf(t *testing.T) {
	for _, name := range methods.Names() {
		m, err := methods.New(name)
		if err != nil {
			t.Fatal(err)
		}
		want := name == "LRSDL" || name == "FDDL" || name == "D2L2R2"
		if got := cvhook.Of(m) != nil; got != want {
			t.Errorf("%s: cvhook.Of found plumbing %v, want %v", name, got, want)
		}
	}
	if cvhook.Of(nil) != nil {
		t.Error("cvhook.Of(nil) is not nil")
	}
}
