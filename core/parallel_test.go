package core

import (
	"errors"
	"fmt"
	"testing"
)

// TestForEach checks that every index runs once, on a goroutine index
// below procs, and that the smallest failing index's error is returned.
func TestForEach(t *testing.T) {
	for _, procs := range []int{0, 1, 3, 50} {
		seen := make([]int, 20)
		ws := make([]int, 20)
		if err := ForEach(20, procs, func(w, i int) error { seen[i]++; ws[i] = w; return nil }); err != nil {
			t.Fatal(err)
		}
		for i := range seen {
			if seen[i] != 1 || ws[i] < 0 || ws[i] >= max(min(procs, 20), 1) {
				t.Errorf("procs %d: index %d ran %d times on goroutine %d", procs, i, seen[i], ws[i])
			}
		}
		err := ForEach(20, procs, func(_, i int) error {
			if i%7 == 5 {
				return fmt.Errorf("fail %d", i)
			}
			return nil
		})
		if err == nil || err.Error() != "fail 5" {
			t.Errorf("procs %d: error %v, want fail 5", procs, err)
		}
	}
	if err := ForEach(0, 2, func(int, int) error { return errors.New("ran") }); err != nil {
		t.Errorf("n = 0: %v", err)
	}
}
