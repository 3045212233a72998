package dl

import (
	"testing"

	"github.com/james-bowman/sparse"
	"gonum.org/v1/gonum/mat"
)

// TestPermuteColumnsSparse checks that PermuteColumns gives the same
// matrix from a sparse.CSC (visited column by column) as from its dense
// copy, entry by entry against Y.At.
func TestPermuteColumnsSparse(t *testing.T) {
	dok := sparse.NewDOK(7, 5)
	for i := 0; i < 7; i++ {
		for j := 0; j < 5; j++ {
			if (i+2*j)%3 == 0 {
				dok.Set(i, j, float64(1+i*5+j))
			}
		}
	}
	S := dok.ToCSC()
	perm := []int{3, 0, 4, 4, 1}
	got, want := PermuteColumns(S, perm), PermuteColumns(mat.DenseCopyOf(S), perm)
	if !mat.Equal(got, want) {
		t.Fatalf("sparse and dense inputs differ:\n%v\n%v", mat.Formatted(got), mat.Formatted(want))
	}
	for j, p := range perm {
		for i := 0; i < 7; i++ {
			if got.At(i, j) != S.At(i, p) {
				t.Fatalf("(%d, %d) = %v, want %v", i, j, got.At(i, j), S.At(i, p))
			}
		}
	}
}

// TestDenseCopySparse checks DenseCopy against mat.DenseCopyOf on a
// sparse.CSC and on a dense matrix.
func TestDenseCopySparse(t *testing.T) {
	dok := sparse.NewDOK(4, 6)
	dok.Set(0, 5, 2)
	dok.Set(3, 0, -1)
	dok.Set(2, 2, 0.5)
	S := dok.ToCSC()
	for _, Y := range []mat.Matrix{S, mat.DenseCopyOf(S)} {
		if got, want := DenseCopy(Y), mat.DenseCopyOf(Y); !mat.Equal(got, want) {
			t.Fatalf("%T: got\n%v\nwant\n%v", Y, mat.Formatted(got), mat.Formatted(want))
		}
	}
}
