package apicheck

import (
	"flag"
	"os"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/api.txt from the tree")

const module = "github.com/lrsdl/lrsdl"

// TestAPI compares the public surface with testdata/api.txt.
func TestAPI(t *testing.T) {
	got, err := API("../..", module, nil)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(got, "\n") + "\n"
	if *update {
		if err := os.WriteFile("testdata/api.txt", []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	b, err := os.ReadFile("testdata/api.txt")
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	for _, l := range got {
		if !slices.Contains(want, l) {
			t.Errorf("added to the public API: %s", l)
		}
	}
	for _, l := range want {
		if !slices.Contains(got, l) {
			t.Errorf("removed from the public API: %s", l)
		}
	}
	if t.Failed() {
		t.Log("if the change is deliberate: go test ./internal/apicheck -update, and say so in CHANGELOG.md")
	}
}

// TestRootSameInBothBuilds checks that the root package exports the same
// declarations with and without -tags openblas.
func TestRootSameInBothBuilds(t *testing.T) {
	root := func(tags []string) []string {
		all, err := API("../..", module, tags)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, l := range all {
			if strings.HasPrefix(l, module+": ") {
				out = append(out, l)
			}
		}
		return out
	}
	pure, ob := root(nil), root([]string{"openblas"})
	if len(pure) == 0 || !slices.Equal(pure, ob) {
		t.Errorf("root API differs between builds:\npure Go: %v\nopenblas: %v", pure, ob)
	}
}

// TestExported checks the extraction on a known file: unexported fields,
// methods of unexported types and bodies are left out.
func TestExported(t *testing.T) {
	dir := t.TempDir()
	src := `package p

// T is a type.
type T struct {
	A int // a
	b int
}

type u struct{}

// M is a method.
func (t *T) M(x int) (int, error) { return x, nil }

func (u) N() {}

// I is an interface.
type I interface {
	F()
	g()
}

const C, d = 1, 2

var V []float64
`
	if err := os.WriteFile(dir+"/p.go", []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := exported(dir, []string{"p.go"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"type T struct { A int }",
		"func (t *T) M(x int) (int, error)",
		"type I interface { F() }",
		"const C",
		"var V []float64",
	}
	if !slices.Equal(got, want) {
		t.Errorf("exported =\n%q\nwant\n%q", got, want)
	}
}
