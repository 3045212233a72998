package report

import (
	"math"
	"testing"
)

// TestComplexityPaperNumbers checks that the formulas reproduce the paper's
// printed numbers to the printed precision, except E-DLSI-D, whose printed
// number follows a typo.
func TestComplexityPaperNumbers(t *testing.T) {
	s := PaperSizes()
	for _, tab := range [][]Complexity{Table1(), Table2()} {
		for _, r := range tab {
			got := r.Ops(s)
			rel := math.Abs(got-r.Paper) / r.Paper
			if r.Note != "" {
				if rel < 0.1 {
					t.Errorf("%s: note says the paper disagrees, but %.3g ≈ %.3g", r.Method, got, r.Paper)
				}
				continue
			}
			// The paper prints 3 significant digits, truncated.
			if rel > 0.006 {
				t.Errorf("%s: %.4g, paper %.3g", r.Method, got, r.Paper)
			}
		}
	}
}

// TestEDLSIDTypo checks E-DLSI-D: the table's formula with (qk + k) gives
// the printed 2.52e10; the text's (qk + d) gives 3.75e10, which the
// table's E-DLSI total uses.
func TestEDLSIDTypo(t *testing.T) {
	s := PaperSizes()
	typo := s.C*s.D*s.D*s.D + s.C*s.Q*s.D*s.K*(s.Q*s.K+s.K)
	if math.Abs(typo-2.525e10) > 1 {
		t.Errorf("typo formula = %g", typo)
	}
	if got := eDLSID(s); got != 3.75e10 {
		t.Errorf("E-DLSI-D = %g, want 3.75e10", got)
	}
	// Brute force over the text's expansion C(q²dk² + d³ + qd²k).
	want := s.C * (s.Q*s.Q*s.D*s.K*s.K + s.D*s.D*s.D + s.Q*s.D*s.D*s.K)
	if got := eDLSID(s); got != want {
		t.Errorf("E-DLSI-D = %g, expansion %g", got, want)
	}
}

// TestComplexityTotalsAreSums checks that Table 2's simplified totals equal
// the sums of their parts from Table 1 and the text, at sizes where
// nothing cancels.
func TestComplexityTotalsAreSums(t *testing.T) {
	for _, s := range []Sizes{PaperSizes(), {C: 3, N: 7, K: 5, Q: 11, D: 13, Q2: 2}, {C: 1, N: 1, K: 1, Q: 1, D: 1, Q2: 1}} {
		t2 := map[string]float64{}
		for _, r := range Table2() {
			t2[r.Method] = r.Ops(s)
		}
		t1 := map[string]float64{}
		for _, r := range Table1() {
			t1[r.Method] = r.Ops(s)
		}
		x := s.C * s.K * (s.K*s.D + s.D*s.N + s.Q*s.K*s.N)
		lrsdlD0 := s.C*s.C*s.D*s.K*s.N + (s.Q+s.Q2)*s.D*s.K*s.K
		for _, c := range []struct {
			name string
			want float64
		}{
			{"O-DLSI", x + t1["O-DLSI-D"]},
			{"E-DLSI", x + t1["E-DLSI-D"]},
			{"O-FDDL", t1["O-FDDL-X"] + t1["O-FDDL-D"]},
			{"E-FDDL", t1["E-FDDL-X"] + t1["E-FDDL-D"]},
			{"LRSDL", t1["E-FDDL-X"] + t1["E-FDDL-D"] + lrsdlD0},
		} {
			if got := t2[c.name]; math.Abs(got-c.want) > 1e-12*c.want {
				t.Errorf("%+v: %s = %g, sum of parts %g", s, c.name, got, c.want)
			}
		}
	}
}
