package main

import (
	"bytes"
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

func TestParse(t *testing.T) {
	res := parse(bytes.NewBufferString(sample))
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
	res := parse(bytes.NewBufferString(sample))
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
	if !strings.HasSuffix(md, "left out): none.\n") {
		t.Errorf("A is faster on two cores and TwoCores is left out, want none:\n%s", md)
	}
}
