// Command benchresults runs the Go benchmarks of lrsdl on both BLAS
// backends and writes bench/RESULTS.md: every benchmark's time and GFLOP/s
// per backend, kernels against their Dgemm baselines, efficient against
// original algorithms, and the exact commands.
//
//	go run ./bench/benchresults                       # both backends
//	go run ./bench/benchresults -backends gonum -benchtime 1x
//
// Backend "openblas1" is OpenBLAS on one core (OPENBLAS_NUM_THREADS=1,
// go test -cpu 1); with it the table gets a column of one-core over
// two-core time, below 1 where the second core makes a problem slower.
//
// Expected benchmarks that no package defines are listed as missing.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/lrsdl/lrsdl/internal/provenance"
)

// result is one benchmark line of go test.
type result struct {
	Pkg, Name string
	NsPerOp   float64
	Metrics   map[string]float64 // by unit, e.g. "GFLOP/s", "allocs/op"
}

// expected are the benchmarks of issues 2, 4 and 5 by name pattern.
var expected = []string{
	`^BenchmarkMulM`, `^BenchmarkAtB`, `^BenchmarkDgemm`,
	`^BenchmarkLRSDLX`, `^BenchmarkLRSDLOuter`, `^BenchmarkLRSDLTrain`,
	`^BenchmarkDLSIUpdateD_Original`, `^BenchmarkDLSIUpdateD_Efficient`,
	`^BenchmarkCOPARUpdateD_Original`, `^BenchmarkCOPARUpdateD_Efficient`,
	`^BenchmarkFDDLUpdateD_Original`, `^BenchmarkFDDLUpdateD_Efficient`,
}

// baselines pairs kernels with the Dgemm of the same shape.
var baselines = [][2]string{
	{"BenchmarkMulM_K1000N2000", "BenchmarkDgemm_K1000K1000N2000"},
	{"BenchmarkMulM_K700N700", "BenchmarkDgemm_K700K700N700"},
	{"BenchmarkAtB_d500K1000N2000", "BenchmarkDgemmAtB_d500K1000N2000"},
	{"BenchmarkSparseAtB_d10000K680N1020", "BenchmarkDgemmAtB_d10000K680N1020"},
	{"BenchmarkSparseAtBCSR_d10000K680N1020", "BenchmarkDgemmAtB_d10000K680N1020"},
	{"BenchmarkLRSDLX_C100n20k10k0_10d500/density100", "BenchmarkDgemm_1000x1000x2000"},
}

var lineRE = regexp.MustCompile(`^(Benchmark\S+?)(-\d+)?\s+(\d+)\s+(.*)$`)

func main() {
	out := flag.String("out", "bench/RESULTS.md", "output `file`")
	backends := flag.String("backends", "gonum,openblas,openblas1", "comma-separated backends (openblas1: OpenBLAS on one core)")
	benchtime := flag.String("benchtime", "200ms", "go test -benchtime")
	bench := flag.String("bench", ".", "go test -bench pattern")
	skip := flag.String("skip", "FlowerFit|COILFit|COILIter|DLSIFitPredict", "go test -skip pattern; the default leaves out the fits on real data sets, minutes per method and backend, which bench/reproduce times (run them alone: go test -tags openblas -run '^$' -bench 'FlowerFit|COILFit|DLSIFitPredict' -benchtime 1x ./methods/)")
	pkgs := flag.String("pkgs", "./kernels/,./core/,./methods/", "comma-separated packages")
	timeout := flag.String("timeout", "40m", "go test -timeout of each package")
	logFile := flag.String("log", "", "re-render from the saved output `file` of an earlier run instead of running")
	save := flag.String("save", "bench/bench.log", "save the go test output to `file`")
	flag.Parse()

	start := time.Now()
	results := map[string]map[string]result{} // backend → name → result
	var cmds, failures []string
	bes := strings.Split(*backends, ",")
	if *logFile != "" {
		b, err := os.ReadFile(*logFile)
		if err != nil {
			fatalf("%v", err)
		}
		results, cmds = parseLog(string(b))
		bes = nil
		for _, be := range []string{"gonum", "openblas", "openblas1"} {
			if len(results[be]) > 0 {
				bes = append(bes, be)
			}
		}
	}
	var saved bytes.Buffer
	for _, be := range bes {
		if *logFile != "" {
			break
		}
		results[be] = map[string]result{}
		// One go test per package, so that one failing or slow package
		// keeps the results of the others.
		for _, pkg := range strings.Split(*pkgs, ",") {
			args := []string{"test", "-run", "^$", "-bench", *bench, "-benchtime", *benchtime, "-count", "1", "-benchmem", "-timeout", *timeout}
			if *skip != "" {
				args = append(args, "-skip", *skip)
			}
			envs := []string{"CGO_ENABLED=0"}
			switch be {
			case "gonum":
			case "openblas":
				args = append(args, "-tags", "openblas")
				envs = []string{"CGO_ENABLED=1"}
			case "openblas1":
				args = append(args, "-tags", "openblas", "-cpu", "1")
				envs = []string{"CGO_ENABLED=1", "OPENBLAS_NUM_THREADS=1"}
			default:
				fatalf("unknown backend %q", be)
			}
			args = append(args, pkg)
			cmd := exec.Command("go", args...)
			cmd.Env = append(os.Environ(), envs...)
			env := strings.Join(envs, " ")
			var buf bytes.Buffer
			cmd.Stdout, cmd.Stderr = io.MultiWriter(&buf, os.Stdout), os.Stderr
			line := strings.Join(append([]string{env, "go"}, quote(args)...), " ")
			cmds = append(cmds, line)
			fmt.Fprintln(os.Stderr, line)
			fmt.Fprintln(&saved, line)
			if err := cmd.Run(); err != nil {
				failures = append(failures, fmt.Sprintf("`%s`: %v (results parsed before the failure are kept)", line, err))
			}
			saved.Write(buf.Bytes())
			for n, r := range parse(&buf) {
				results[be][n] = r
			}
		}
	}
	if *logFile == "" && *save != "" {
		if err := os.WriteFile(*save, saved.Bytes(), 0o644); err != nil {
			fatalf("%v", err)
		}
	}
	took := time.Since(start)
	if *logFile != "" {
		took = 0
	}
	md := render(results, bes, cmds, failures, *benchtime, took, provenance.Commit(*out, *save))
	if err := os.WriteFile(*out, []byte(md), 0o644); err != nil {
		fatalf("%v", err)
	}
	fmt.Fprintf(os.Stderr, "wrote %s in %v\n", *out, time.Since(start).Round(time.Second))
}

func fatalf(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "benchresults: "+format+"\n", a...)
	os.Exit(1)
}

func quote(args []string) []string {
	q := make([]string, len(args))
	for i, a := range args {
		if strings.ContainsAny(a, "^$*| ") {
			a = "'" + a + "'"
		}
		q[i] = a
	}
	return q
}

// parseLog splits a saved log at its command lines ("CGO_ENABLED=… go test
// …", with -tags openblas for that backend and -cpu 1 for openblas1) and
// parses each part.
func parseLog(log string) (map[string]map[string]result, []string) {
	res := map[string]map[string]result{"gonum": {}, "openblas": {}, "openblas1": {}}
	var cmds []string
	be := "gonum"
	var part strings.Builder
	flush := func() {
		for n, r := range parse(bytes.NewBufferString(part.String())) {
			res[be][n] = r
		}
		part.Reset()
	}
	for _, l := range strings.Split(log, "\n") {
		if strings.HasPrefix(l, "CGO_ENABLED=") && strings.Contains(l, " go test ") {
			flush()
			cmds = append(cmds, l)
			be = "gonum"
			if strings.Contains(l, "-tags openblas") {
				be = "openblas"
				if strings.Contains(l, "-cpu 1") {
					be = "openblas1"
				}
			}
			continue
		}
		part.WriteString(l + "\n")
	}
	flush()
	return res, cmds
}

// parse reads go test -bench output.
func parse(buf *bytes.Buffer) map[string]result {
	res := map[string]result{}
	pkg := ""
	sc := bufio.NewScanner(buf)
	for sc.Scan() {
		l := sc.Text()
		if p, ok := strings.CutPrefix(l, "pkg: "); ok {
			pkg = strings.TrimPrefix(p, "github.com/lrsdl/lrsdl/")
			continue
		}
		m := lineRE.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		r := result{Pkg: pkg, Name: m[1], Metrics: map[string]float64{}}
		f := strings.Fields(m[4])
		for i := 0; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				continue
			}
			if f[i+1] == "ns/op" {
				r.NsPerOp = v
			} else {
				r.Metrics[f[i+1]] = v
			}
		}
		res[r.Name] = r
	}
	return res
}

func fmtNs(ns float64) string {
	switch {
	case ns == 0:
		return "–"
	case ns >= 1e9:
		return fmt.Sprintf("%.3g s", ns/1e9)
	case ns >= 1e6:
		return fmt.Sprintf("%.3g ms", ns/1e6)
	case ns >= 1e3:
		return fmt.Sprintf("%.3g µs", ns/1e3)
	}
	return fmt.Sprintf("%.3g ns", ns)
}

func metric(r result, ok bool, unit string) string {
	if v, has := r.Metrics[unit]; ok && has {
		return fmt.Sprintf("%.3g", v)
	}
	return ""
}

func render(results map[string]map[string]result, bes, cmds, failures []string, benchtime string, took time.Duration, commit string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# lrsdl Go benchmarks\n\nGenerated by `go run ./bench/benchresults` (`make bench-results`); do not edit by hand.\n\n")
	fmt.Fprintf(&b, "| | |\n|---|---|\n| date (UTC) | %s |\n| machine | %s, %d CPUs, GOMAXPROCS %d |\n| Go | %s |\n| commit | `%s` |\n| benchtime | %s |\n| run time | %s |\n\n",
		time.Now().UTC().Format(time.RFC3339), provenance.CPUModel(), runtime.NumCPU(), runtime.GOMAXPROCS(0), runtime.Version(), commit, benchtime, runTime(took))
	b.WriteString("The machine is shared (2 cores, other jobs running), so times are indicative; short -benchtime values are noisy.\n\nCommands:\n\n")
	for _, c := range cmds {
		fmt.Fprintf(&b, "    %s\n", c)
	}
	b.WriteString("\n")
	for _, f := range failures {
		fmt.Fprintf(&b, "- **failed:** %s\n", f)
	}
	if len(failures) > 0 {
		b.WriteString("\n")
	}

	names := map[string]result{}
	for _, be := range bes {
		for n, r := range results[be] {
			names[n] = r
		}
	}
	order := make([]string, 0, len(names))
	for n := range names {
		order = append(order, n)
	}
	sort.Slice(order, func(i, j int) bool {
		a, c := names[order[i]], names[order[j]]
		if a.Pkg != c.Pkg {
			return a.Pkg < c.Pkg
		}
		return order[i] < order[j]
	})

	b.WriteString("## All benchmarks\n\n| package | benchmark |")
	for _, be := range bes {
		fmt.Fprintf(&b, " %s time/op | %s GFLOP/s | %s allocs/op |", be, be, be)
	}
	// Ratio columns: pure Go over OpenBLAS, one core over two.
	var ratios [][2]string
	for _, p := range [][2]string{{"gonum", "openblas"}, {"openblas1", "openblas"}} {
		if slices.Contains(bes, p[0]) && slices.Contains(bes, p[1]) {
			ratios = append(ratios, p)
			fmt.Fprintf(&b, " %s/%s time |", p[0], p[1])
		}
	}
	b.WriteString("\n|---|---|" + strings.Repeat("---:|", 3*len(bes)+len(ratios)) + "\n")
	for _, n := range order {
		fmt.Fprintf(&b, "| %s | %s |", names[n].Pkg, strings.TrimPrefix(n, "Benchmark"))
		for _, be := range bes {
			r, ok := results[be][n]
			fmt.Fprintf(&b, " %s | %s | %s |", fmtNs(r.NsPerOp), metric(r, ok, "GFLOP/s"), metric(r, ok, "allocs/op"))
		}
		for _, p := range ratios {
			r0, ok0 := results[p[0]][n]
			r1, ok1 := results[p[1]][n]
			if ok0 && ok1 && r1.NsPerOp > 0 {
				fmt.Fprintf(&b, " %.2f |", r0.NsPerOp/r1.NsPerOp)
			} else {
				b.WriteString(" |")
			}
		}
		b.WriteString("\n")
	}

	if slices.Contains(bes, "openblas") && slices.Contains(bes, "openblas1") {
		b.WriteString(twoCores(results, order))
	}

	ratioTable := func(title, head string, pairs [][2]string) {
		fmt.Fprintf(&b, "\n## %s\n\n| %s |", title, head)
		for _, be := range bes {
			fmt.Fprintf(&b, " %s |", be)
		}
		b.WriteString("\n|---|" + strings.Repeat("---:|", len(bes)) + "\n")
		for _, p := range pairs {
			fmt.Fprintf(&b, "| %s / %s |", strings.TrimPrefix(p[0], "Benchmark"), strings.TrimPrefix(p[1], "Benchmark"))
			for _, be := range bes {
				a, ok1 := results[be][p[0]]
				c, ok2 := results[be][p[1]]
				if ok1 && ok2 && c.NsPerOp > 0 {
					fmt.Fprintf(&b, " %.3g |", a.NsPerOp/c.NsPerOp)
				} else {
					b.WriteString(" missing |")
				}
			}
			b.WriteString("\n")
		}
	}
	ratioTable("Kernels against Dgemm of the same shape", "time ratio kernel / Dgemm (below 1: kernel faster)", baselines)

	var eo [][2]string
	for _, n := range order {
		if strings.Contains(n, "Efficient") {
			if o := strings.Replace(n, "Efficient", "Original", 1); names[o].Name != "" {
				eo = append(eo, [2]string{n, o})
			}
		}
	}
	ratioTable("Efficient against original algorithms", "time ratio efficient / original", eo)

	var missing []string
	for _, pat := range expected {
		re := regexp.MustCompile(pat)
		found := false
		for n := range names {
			found = found || re.MatchString(n)
		}
		if !found {
			missing = append(missing, "`"+pat+"`")
		}
	}
	b.WriteString("\n## Missing\n\n")
	if len(missing) == 0 {
		b.WriteString("Every expected benchmark ran.\n")
	} else {
		fmt.Fprintf(&b, "No benchmark matched: %s.\n", strings.Join(missing, ", "))
	}
	return b.String()
}

// ownThreads matches the benchmarks that set their own thread counts and
// time one core against two inside one run.
var ownThreads = regexp.MustCompile(`TwoCores|GemmThreads`)

// twoCores lists, slowest first, the benchmarks of order that took longer
// on two cores (openblas) than on one (openblas1), leaving out ownThreads.
func twoCores(results map[string]map[string]result, order []string) string {
	type row struct {
		name  string
		ratio float64
	}
	var slow []row
	for _, n := range order {
		two, ok2 := results["openblas"][n]
		one, ok1 := results["openblas1"][n]
		if ok1 && ok2 && two.NsPerOp > 0 && one.NsPerOp < two.NsPerOp && !ownThreads.MatchString(n) {
			slow = append(slow, row{strings.TrimPrefix(n, "Benchmark"), one.NsPerOp / two.NsPerOp})
		}
	}
	sort.SliceStable(slow, func(i, j int) bool { return slow[i].ratio < slow[j].ratio })
	var b strings.Builder
	b.WriteString("\n## Two cores against one\n\nBenchmarks slower on two cores (openblas) than on one (openblas1), " +
		"slowest first; the two columns come from separate runs minutes apart, so ratios near 1 are within their noise " +
		"(benchmarks that time both inside one run, TwoCores and GemmThreads, are left out):")
	if len(slow) == 0 {
		b.WriteString(" none.\n")
		return b.String()
	}
	b.WriteString("\n\n| benchmark | openblas1/openblas time |\n|---|---:|\n")
	for _, r := range slow {
		fmt.Fprintf(&b, "| %s | %.2f |\n", r.name, r.ratio)
	}
	return b.String()
}

func runTime(d time.Duration) string {
	if d == 0 {
		return "re-rendered from a saved log (-log)"
	}
	return d.Round(time.Second).String()
}
