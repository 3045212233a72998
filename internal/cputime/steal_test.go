package cputime

import (
	"testing"
	"time"
)

// TestParseSteal checks parseSteal on lines of /proc/stat: the eighth
// number of the "cpu" line, in ticks of a hundredth of a second, and 0 for
// anything else.
func TestParseSteal(t *testing.T) {
	for _, c := range []struct {
		stat string
		want time.Duration
	}{
		{"cpu  1328322 2431 69868 649332 1491 0 392 8089 0 0\ncpu0 664161 1215 34934 324666 745 0 196 4044 0 0\n", 80890 * time.Millisecond},
		{"cpu  1 2 3 4 5 6 7 0 0 0\n", 0},
		{"cpu  1 2 3 4 5 6 7\n", 0},        // a kernel without the column
		{"cpu0 1 2 3 4 5 6 7 8 0 0\n", 0},  // not the summary line
		{"cpu  1 2 3 4 5 6 7 -8 0 0\n", 0}, // not a count
		{"", 0},
	} {
		if got := parseSteal([]byte(c.stat)); got != c.want {
			t.Errorf("parseSteal(%q) = %v, want %v", c.stat, got, c.want)
		}
	}
}
