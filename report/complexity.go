package report

// Sizes are the problem sizes of the paper's complexity analysis
// (section "Complexity analysis"): C classes, N training samples per class,
// K atoms per class (and shared), Q iterations of every iterative solver,
// D signal dimension and Q2 iterations of the SVD in LRSDL-D0.
type Sizes struct {
	C, N, K, Q, D, Q2 float64
}

// PaperSizes returns the sizes at which the paper plugs in numbers:
// C=100, n=20, k=10, q=50, d=500, q2=50.
func PaperSizes() Sizes { return Sizes{C: 100, N: 20, K: 10, Q: 50, D: 500, Q2: 50} }

// Complexity is one row of the paper's Table 1 or 2: the approximate
// number of multiplications of one outer iteration of an algorithm.
type Complexity struct {
	Method  string
	Formula string                // as printed in the paper, or as corrected (see Note)
	Ops     func(s Sizes) float64 // the formula
	Paper   float64               // the paper's "plugging numbers" column
	Note    string                // disagreement between the paper's formula and number, if any
}

func dlsiX(s Sizes) float64 { return s.C * s.K * (s.K*s.D + s.D*s.N + s.Q*s.K*s.N) }

// eDLSID is the text's C(q²dk² + d³ + qd²k) = Cd³ + Cqdk(qk + d).
func eDLSID(s Sizes) float64 {
	return s.C*s.D*s.D*s.D + s.C*s.Q*s.D*s.K*(s.Q*s.K+s.D)
}

func oDLSID(s Sizes) float64 { return s.C * s.Q * s.K * s.D * s.D * s.D }

func copaRX(s Sizes) float64 {
	return s.C * s.C * s.C * s.K * s.K * (2*s.D + s.C*s.K + s.Q*s.N)
}

func oFDDLX(s Sizes) float64 {
	return s.C * s.C * s.K * (s.D*s.N + s.Q*s.C*s.K*s.N + s.C*s.D*s.K)
}

func eFDDLX(s Sizes) float64 { return s.C * s.C * s.K * (s.D*s.N + s.Q*s.C*s.N*s.K + s.D*s.K) }

func oFDDLD(s Sizes) float64 { return s.C * s.D * s.K * (s.Q*s.K + s.C*s.C*s.N) }

func eFDDLD(s Sizes) float64 {
	return s.C*s.D*s.K*(s.C*s.N+s.C*s.Q*s.K) + s.C*s.C*s.C*s.K*s.K*s.N
}

const eDLSIDNote = "the paper's table prints Cd³ + Cqdk(qk + k) = 2.52e10; its text derives " +
	"C(q²dk² + d³ + qd²k) = Cd³ + Cqdk(qk + d), used here, which is 3.75e10 (and is what its Table 2 E-DLSI row uses)"

// Table1 returns the paper's Table 1: the efficient sub-problem solvers and
// their original versions.
func Table1() []Complexity {
	return []Complexity{
		{Method: "O-DLSI-D", Formula: "Cqkd³", Ops: oDLSID, Paper: 6.25e12},
		{Method: "E-DLSI-D", Formula: "Cd³ + Cqdk(qk + d)", Ops: eDLSID, Paper: 2.52e10, Note: eDLSIDNote},
		{Method: "O-FDDL-X", Formula: "C²k(dn + qCkn + Cdk)", Ops: oFDDLX, Paper: 1.51e11},
		{Method: "E-FDDL-X", Formula: "C²k(dn + qCnk + dk)", Ops: eFDDLX, Paper: 1.01e11},
		{Method: "O-FDDL-D", Formula: "Cdk(qk + C²n)", Ops: oFDDLD, Paper: 1e11},
		{Method: "E-FDDL-D", Formula: "Cdk(Cn + Cqk) + C³k²n", Ops: eFDDLD, Paper: 2.8e10},
	}
}

// Table2 returns the paper's Table 2: one iteration (codes and dictionary
// update) of each method.
func Table2() []Complexity {
	return []Complexity{
		{Method: "O-DLSI", Formula: "Ck(kd + dn + qkn) + Cqkd³", Paper: 6.25e12,
			Ops: func(s Sizes) float64 { return dlsiX(s) + oDLSID(s) }},
		{Method: "E-DLSI", Formula: "Ck(kd + dn + qkn) + Cd³ + Cqdk(qk + d)", Paper: 3.75e10,
			Ops: func(s Sizes) float64 { return dlsiX(s) + eDLSID(s) }},
		{Method: "O-FDDL", Formula: "C²dk(n + Ck + Cn) + Ck²q(d + C²n)", Paper: 2.51e11,
			Ops: func(s Sizes) float64 {
				return s.C*s.C*s.D*s.K*(s.N+s.C*s.K+s.C*s.N) + s.C*s.K*s.K*s.Q*(s.D+s.C*s.C*s.N)
			}},
		{Method: "E-FDDL", Formula: "C²k((q + 1)k(d + Cn) + 2dn)", Paper: 1.29e11, Ops: eFDDL},
		{Method: "O-COPAR", Formula: "C³k²(2d + Ck + qn) + Cqkd³", Paper: 6.55e12,
			Ops: func(s Sizes) float64 { return copaRX(s) + oDLSID(s) }},
		{Method: "E-COPAR", Formula: "C³k²(2d + Ck + qn) + Cd³ + Cqdk(qk + d)", Paper: 3.38e11,
			Ops: func(s Sizes) float64 { return copaRX(s) + eDLSID(s) }},
		{Method: "LRSDL", Formula: "C²k((q + 1)k(d + Cn) + 2dn) + C²dkn + (q + q2)dk²", Paper: 1.3e11,
			Ops: func(s Sizes) float64 {
				return eFDDL(s) + s.C*s.C*s.D*s.K*s.N + (s.Q+s.Q2)*s.D*s.K*s.K
			}},
	}
}

func eFDDL(s Sizes) float64 {
	return s.C * s.C * s.K * ((s.Q+1)*s.K*(s.D+s.C*s.N) + 2*s.D*s.N)
}
