package methods_test

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestREADMESnippet checks that the README's library example is the body of
// Example, so that it compiles and runs.
func TestREADMESnippet(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)## Using the library\n\n```go\n.*?\n\n(ctx := .*?)\nfmt.Println[^\n]*\n```").FindSubmatch(readme)
	if m == nil {
		t.Fatal("README has no library snippet starting at ctx := and ending in fmt.Println")
	}
	body := regexp.MustCompile(`(?s)func Example\(\) \{\n(.*?)\n\tfmt.Printf`).FindSubmatch(src)
	if body == nil {
		t.Fatal("example_test.go has no Example")
	}
	norm := func(b []byte) string {
		s := strings.ReplaceAll(string(b), `"../testdata/`, `"testdata/`)
		var out []string
		for _, l := range strings.Split(s, "\n") {
			out = append(out, strings.TrimSpace(l))
		}
		return strings.TrimSpace(strings.Join(out, "\n"))
	}
	if got, want := norm(m[1]), norm(body[1]); got != want {
		t.Errorf("README snippet differs from Example:\n--- README\n%s\n--- Example\n%s", got, want)
	}
}
