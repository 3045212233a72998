package main

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

const sample = `goos: linux
pkg: github.com/lrsdl/lrsdl/blas
BenchmarkMulM_K1000N2000-2        	       2	 500000000 ns/op	         8.000 GFLOP/s	       0 B/op	       0 allocs/op
BenchmarkDgemm_K1000K1000N2000-2  	       2	1000000000 ns/op	         4.000 GFLOP/s
pkg: github.com/lrsdl/lrsdl/methods
BenchmarkDLSIUpdateD_Original   	       1	3000000 ns/op
BenchmarkDLSIUpdateD_Efficient-2	       1	1000000 ns/op
PASS
`

// flat merges parse's results over GOMAXPROCS.
func flat(byProcs map[int]map[string]result) map[string]result {
	res := map[string]result{}
	for _, rs := range byProcs {
		for n, r := range rs {
			res[n] = r
		}
	}
	return res
}

func TestParse(t *testing.T) {
	res := flat(parse(bytes.NewBufferString(sample)))
	if len(res) != 4 {
		t.Fatalf("parsed %d benchmarks, want 4: %v", len(res), res)
	}
	m := res["BenchmarkMulM_K1000N2000"]
	if m.Pkg != "blas" || m.NsPerOp != 5e8 || m.Metrics["GFLOP/s"] != 8 || m.Metrics["allocs/op"] != 0 {
		t.Errorf("MulM parsed as %+v", m)
	}
	if r := res["BenchmarkDLSIUpdateD_Original"]; r.Pkg != "methods" || r.NsPerOp != 3e6 {
		t.Errorf("DLSI original parsed as %+v", r)
	}
}

func TestRender(t *testing.T) {
	res := flat(parse(bytes.NewBufferString(sample)))
	md := render(map[string]map[string]result{"gonum": res}, []string{"gonum"}, []string{"go test"}, nil, "1x", 0, "abc")
	for _, want := range []string{
		"| MulM_K1000N2000 / Dgemm_K1000K1000N2000 | 0.5 |",        // kernel / Dgemm
		"| DLSIUpdateD_Efficient / DLSIUpdateD_Original | 0.333 |", // efficient / original
		"| AtB_d500K1000N2000 / DgemmAtB_d500K1000N2000 | missing |",
		"`^BenchmarkFDDLUpdateD_Original`", // listed as missing
	} {
		if !strings.Contains(md, want) {
			t.Errorf("output lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "`^BenchmarkMulM`") {
		t.Errorf("MulM reported missing:\n%s", md)
	}
}

func TestParseLog(t *testing.T) {
	log := "CGO_ENABLED=0 go test -run '^$' -bench . ./methods/\n" + sample +
		"CGO_ENABLED=1 go test -run '^$' -bench . -tags openblas ./methods/\n" +
		"pkg: github.com/lrsdl/lrsdl/methods\nBenchmarkDLSIUpdateD_Efficient-2\t1\t500000 ns/op\n"
	res, cmds := parseLog(log)
	if len(cmds) != 2 || len(res["gonum"]) != 4 || len(res["openblas"]) != 1 {
		t.Fatalf("got %d commands, %d gonum and %d openblas results", len(cmds), len(res["gonum"]), len(res["openblas"]))
	}
	if r := res["openblas"]["BenchmarkDLSIUpdateD_Efficient"]; r.NsPerOp != 5e5 {
		t.Errorf("openblas DLSI efficient parsed as %+v", r)
	}
}

func TestOneCoreColumn(t *testing.T) {
	log := "CGO_ENABLED=1 go test -run '^$' -bench . -tags openblas ./methods/\n" +
		"pkg: github.com/lrsdl/lrsdl/methods\nBenchmarkDLSIUpdateD_Efficient-2\t1\t500000 ns/op\n" +
		"CGO_ENABLED=1 OPENBLAS_NUM_THREADS=1 go test -run '^$' -bench . -tags openblas -cpu 1 ./methods/\n" +
		"pkg: github.com/lrsdl/lrsdl/methods\nBenchmarkDLSIUpdateD_Efficient\t1\t400000 ns/op\n"
	res, cmds := parseLog(log)
	if len(cmds) != 2 || len(res["openblas"]) != 1 || len(res["openblas1"]) != 1 {
		t.Fatalf("got %d commands, %d openblas and %d openblas1 results", len(cmds), len(res["openblas"]), len(res["openblas1"]))
	}
	md := render(res, []string{"openblas", "openblas1"}, cmds, nil, "1x", 0, "abc")
	for _, want := range []string{" openblas1/openblas time |", "| methods | DLSIUpdateD_Efficient | 500 µs |  |  | 400 µs |  |  | 0.80 |",
		"## Two cores against one", "| DLSIUpdateD_Efficient | 0.80 |"} {
		if !strings.Contains(md, want) {
			t.Errorf("output lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "gonum/openblas") {
		t.Errorf("gonum ratio column without gonum results:\n%s", md)
	}
}

func TestTwoCoresNone(t *testing.T) {
	res := map[string]map[string]result{
		"openblas":  {"BenchmarkA": {Pkg: "core", NsPerOp: 400}, "BenchmarkTwoCores": {Pkg: "methods", NsPerOp: 900}},
		"openblas1": {"BenchmarkA": {Pkg: "core", NsPerOp: 500}, "BenchmarkTwoCores": {Pkg: "methods", NsPerOp: 500}},
	}
	md := twoCores(res, []string{"BenchmarkA", "BenchmarkTwoCores"})
	if !strings.HasSuffix(md, "Slower in every run: 0; by more than 2 %: 0.\n") {
		t.Errorf("A is faster on two cores and TwoCores is left out, want none:\n%s", md)
	}
}

func TestPairs(t *testing.T) {
	log := "CGO_ENABLED=1 go test -run '^$' -bench . -count 3 -tags openblas -cpu 1,2 ./methods/\n" +
		"pkg: github.com/lrsdl/lrsdl/methods\n" +
		"BenchmarkA\t1\t100 ns/op\nBenchmarkA\t1\t300 ns/op\nBenchmarkA\t1\t200 ns/op\n" +
		"BenchmarkA-2\t1\t301 ns/op\nBenchmarkA-2\t1\t400 ns/op\nBenchmarkA-2\t1\t350 ns/op\n" +
		"BenchmarkB\t1\t100 ns/op\nBenchmarkB\t1\t300 ns/op\nBenchmarkB\t1\t200 ns/op\n" +
		"BenchmarkB-2\t1\t250 ns/op\nBenchmarkB-2\t1\t150 ns/op\nBenchmarkB-2\t1\t260 ns/op\n" +
		"BenchmarkC\t1\t100 ns/op\nBenchmarkC-2\t1\t310 ns/op\nBenchmarkC\t1\t300 ns/op\n" +
		"BenchmarkC-2\t1\t400 ns/op\nBenchmarkC\t1\t200 ns/op\nBenchmarkC-2\t1\t320 ns/op\n" +
		"BenchmarkTwoCores\t1\t9 ns/op\t0.7 two/one\nBenchmarkTwoCores-2\t1\t9 ns/op\t0.6 two/one\n"
	res, cmds := parseLog(log)
	if a := res["openblas1"]["BenchmarkA"]; a.NsPerOp != 200 || len(a.Runs) != 3 {
		t.Fatalf("one-core A parsed as %+v, want median 200 of 3 runs", a)
	}
	if a := res["openblas"]["BenchmarkA"]; a.NsPerOp != 350 {
		t.Fatalf("two-core A parsed as %+v, want median 350", a)
	}
	md := render(res, []string{"openblas", "openblas1"}, cmds, nil, "1x", 0, "abc")
	for _, want := range []string{
		"two/one: 0.700, 0.600; median 0.650.",
		"Slower in every run: 2; by more than 2 %: 1.",
		"| A | 0.57 | yes, by at most 2 % |", // 301 > 300, by less than 2 %
		"| B | 0.80 | no |",                  // 150 < 300
		"| C | 0.62 | **yes** |",             // 310 > 1.02·300
	} {
		if !strings.Contains(md, want) {
			t.Errorf("output lacks %q:\n%s", want, md)
		}
	}
}

// TestPasses checks that the passes of one command over a package (the
// pairs of OpenBLAS's runs) add up to one result per benchmark, with every
// run, and that the command is listed once.
func TestPasses(t *testing.T) {
	cmd := "CGO_ENABLED=1 go test -run '^$' -bench . -count 1 -tags openblas -cpu 1,2 ./methods/\n"
	pass := func(one, two, tc string) string {
		return cmd + "pkg: github.com/lrsdl/lrsdl/methods\n" +
			"BenchmarkA\t1\t" + one + " ns/op\t5 GFLOP/s\nBenchmarkA-2\t1\t" + two + " ns/op\t" + two + " GFLOP/s\n" +
			"BenchmarkTwoCores\t1\t9 ns/op\t" + tc + " two/one\n"
	}
	res, cmds := parseLog(pass("100", "310", "0.7") + pass("300", "400", "0.6") + pass("200", "320", "0.8"))
	if len(cmds) != 1 {
		t.Errorf("commands %q, want the one command once", cmds)
	}
	one, two := res["openblas1"]["BenchmarkA"], res["openblas"]["BenchmarkA"]
	if one.NsPerOp != 200 || len(one.Runs) != 3 || two.NsPerOp != 320 || len(two.Runs) != 3 {
		t.Fatalf("A parsed as %+v and %+v, want medians 200 and 320 of 3 runs each", one, two)
	}
	if two.Metrics["GFLOP/s"] != 320 || len(two.Each) != 3 || two.Each[1]["GFLOP/s"] != 400 {
		t.Errorf("two-core A's metrics %v, runs' %v: want the median run's and every run's", two.Metrics, two.Each)
	}
	md := render(res, []string{"openblas", "openblas1"}, cmds, nil, "1x", 0, "abc")
	for _, want := range []string{"two/one: 0.700, 0.600, 0.800; median 0.700.", "| A | 0.62 | **yes** |"} {
		if !strings.Contains(md, want) {
			t.Errorf("output lacks %q:\n%s", want, md)
		}
	}
}

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		v    []float64
		want float64
	}{{[]float64{3, 1, 2}, 2}, {[]float64{0.7033, 0.6913, 0.7246, 0.6999}, 0.7016}, {[]float64{5}, 5}} {
		if got := median(c.v); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("median(%v) = %v, want %v", c.v, got, c.want)
		}
	}
}
