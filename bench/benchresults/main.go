// Command benchresults runs the Go benchmarks of lrsdl on both BLAS
// backends and writes bench/RESULTS.md: every benchmark's time and GFLOP/s
// per backend, kernels against their Dgemm baselines, efficient against
// original algorithms, and the exact commands.
//
//	go run ./bench/benchresults                       # both backends
//	go run ./bench/benchresults -backends gonum -benchtime 1x
//
// Backend "openblas" runs every benchmark at GOMAXPROCS 1 and then 2 (go
// test -cpu 1,2), so both see the same load, in -pairs passes over the
// packages, so that a burst of load on the host reaches one pair: the
// table's "openblas1" column is the one-core runs (GOMAXPROCS 1 keeps
// every product on the calling goroutine), "openblas" the two-core ones,
// each the median of its runs, and a column of one-core over two-core time
// is below 1 where the second core makes a problem slower.
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

// result is a benchmark's lines of go test at one GOMAXPROCS: NsPerOp and
// Metrics are those of the median run (by time), Runs every run's ns/op.
type result struct {
	Pkg, Name string
	NsPerOp   float64
	Metrics   map[string]float64 // by unit, e.g. "GFLOP/s", "allocs/op"
	Runs      []float64
	Each      []map[string]float64 // every run's Metrics
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
	backends := flag.String("backends", "gonum,openblas", "comma-separated backends (openblas: OpenBLAS on one core and on two, in pairs)")
	pairs := flag.Int("pairs", 3, "passes over the packages, each running every benchmark on one core and then on two (openblas)")
	benchtime := flag.String("benchtime", "100ms", "go test -benchtime")
	bench := flag.String("bench", ".", "go test -bench pattern")
	skip := flag.String("skip", "FlowerFit|COILFit|COILIter|DLSIFitPredict|LRSDLXSolveShapes", "go test -skip pattern; the default leaves out the fits on real data sets, minutes per method and backend, which bench/reproduce times (run them alone: go test -tags openblas -run '^$' -bench 'FlowerFit|COILFit|DLSIFitPredict' -benchtime 1x ./methods/), and the X step's shape study behind its fused bounds (go test -tags openblas -run '^$' -bench LRSDLXSolveShapes -cpu 1,2 ./methods/)")
	pkgs := flag.String("pkgs", "./blas/,./core/,./methods/", "comma-separated packages")
	timeout := flag.String("timeout", "40m", "go test -timeout of each package")
	logFile := flag.String("log", "", "re-render from the saved output `file` of an earlier run instead of running")
	save := flag.String("save", "bench/bench.log", "save the go test output to `file`")
	flag.Parse()

	start := time.Now()
	results := map[string]map[string]result{} // backend → name → result
	var cmds, failures []string
	bes := strings.Split(*backends, ",")
	if *pairs < 1 {
		fatalf("-pairs %d: want at least 1", *pairs)
	}
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
		if be != "gonum" && be != "openblas" {
			fatalf("unknown backend %q (want gonum or openblas)", be)
		}
		// One go test per package, so that one failing or slow package
		// keeps the results of the others. OpenBLAS runs every package
		// once per pair, one core then two (-cpu 1,2), in passes over all
		// of them, so that a pair's runs see the same load and a burst of
		// load on the host reaches one pair of a benchmark, not all.
		passes := 1
		if be == "openblas" {
			passes = *pairs
		}
		for pass := 0; pass < passes; pass++ {
			for _, pkg := range strings.Split(*pkgs, ",") {
				args := []string{"test", "-run", "^$", "-bench", *bench, "-benchtime", *benchtime, "-count", "1", "-benchmem", "-timeout", *timeout}
				if *skip != "" {
					args = append(args, "-skip", *skip)
				}
				envs := []string{"CGO_ENABLED=0"}
				if be == "openblas" {
					args = append(args, "-tags", "openblas", "-cpu", "1,2")
					envs = []string{"CGO_ENABLED=1"}
				}
				args = append(args, pkg)
				cmd := exec.Command("go", args...)
				cmd.Env = append(os.Environ(), envs...)
				env := strings.Join(envs, " ")
				var buf bytes.Buffer
				cmd.Stdout, cmd.Stderr = io.MultiWriter(&buf, os.Stdout), os.Stderr
				line := strings.Join(append([]string{env, "go"}, quote(args)...), " ")
				if !slices.Contains(cmds, line) {
					cmds = append(cmds, line)
				}
				fmt.Fprintln(os.Stderr, line)
				fmt.Fprintln(&saved, line)
				if err := cmd.Run(); err != nil {
					failures = append(failures, fmt.Sprintf("`%s`: %v (results parsed before the failure are kept)", line, err))
				}
				saved.Write(buf.Bytes())
				merge(results, be, parse(&buf))
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
	} else if slices.Contains(bes, "openblas") {
		bes = append(bes, "openblas1")
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
// …", with -tags openblas for that backend) and parses each part.
func parseLog(log string) (map[string]map[string]result, []string) {
	res := map[string]map[string]result{}
	var cmds []string
	be := "gonum"
	var part strings.Builder
	flush := func() {
		merge(res, be, parse(bytes.NewBufferString(part.String())))
		part.Reset()
	}
	for _, l := range strings.Split(log, "\n") {
		if strings.HasPrefix(l, "CGO_ENABLED=") && strings.Contains(l, " go test ") {
			flush()
			if !slices.Contains(cmds, l) {
				cmds = append(cmds, l)
			}
			be = "gonum"
			if strings.Contains(l, "-tags openblas") {
				be = "openblas"
			}
			continue
		}
		part.WriteString(l + "\n")
	}
	flush()
	return res, cmds
}

// merge adds the results of one go test of backend be, by GOMAXPROCS, to
// res: OpenBLAS's runs at GOMAXPROCS 1 go to "openblas1". A benchmark
// already in res gains the new runs.
func merge(res map[string]map[string]result, be string, byProcs map[int]map[string]result) {
	for procs, rs := range byProcs {
		b := be
		if be == "openblas" && procs == 1 {
			b = "openblas1"
		}
		if res[b] == nil {
			res[b] = map[string]result{}
		}
		for n, r := range rs {
			if old, ok := res[b][n]; ok {
				r = summarize(append(old.split(), r.split()...))
			}
			res[b][n] = r
		}
	}
}

// split returns r's runs as results of one run each.
func (r result) split() []result {
	if len(r.Runs) == 0 {
		return []result{{Pkg: r.Pkg, Name: r.Name, NsPerOp: r.NsPerOp, Metrics: r.Metrics}}
	}
	rs := make([]result, len(r.Runs))
	for i, ns := range r.Runs {
		rs[i] = result{Pkg: r.Pkg, Name: r.Name, NsPerOp: ns, Metrics: r.Each[i]}
	}
	return rs
}

// summarize returns the median of the runs rs (by time, the lower middle
// one for an even count) with every run's time and metrics.
func summarize(rs []result) result {
	byTime := slices.Clone(rs)
	sort.SliceStable(byTime, func(i, j int) bool { return byTime[i].NsPerOp < byTime[j].NsPerOp })
	med := byTime[(len(byTime)-1)/2]
	med.Runs, med.Each = nil, nil
	for _, r := range rs {
		med.Runs = append(med.Runs, r.NsPerOp)
		med.Each = append(med.Each, r.Metrics)
	}
	return med
}

// parse reads go test -bench output, by GOMAXPROCS (the name's suffix -N,
// none for 1). A benchmark's repeated lines (-count) are its runs.
func parse(buf *bytes.Buffer) map[int]map[string]result {
	type key struct {
		procs int
		name  string
	}
	runs := map[key][]result{}
	var order []key
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
		k := key{1, r.Name}
		if m[2] != "" {
			k.procs, _ = strconv.Atoi(m[2][1:])
		}
		if runs[k] == nil {
			order = append(order, k)
		}
		runs[k] = append(runs[k], r)
	}
	res := map[int]map[string]result{}
	for _, k := range order {
		if res[k.procs] == nil {
			res[k.procs] = map[string]result{}
		}
		res[k.procs][k.name] = summarize(runs[k])
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

// twoCores lists, slowest first, the benchmarks of order whose median
// time on two cores (openblas) is above that on one (openblas1), leaving
// out ownThreads, and marks those where every two-core run was slower than
// every one-core run (with three runs each, a chance of 1 in 20 when the
// second core changes nothing: a one-sided rank test), and by more than
// slowMargin.
func twoCores(results map[string]map[string]result, order []string) string {
	type row struct {
		name         string
		ratio        float64
		every, clear bool
	}
	var slow []row
	var every, clear int
	for _, n := range order {
		two, ok2 := results["openblas"][n]
		one, ok1 := results["openblas1"][n]
		if ok1 && ok2 && two.NsPerOp > 0 && one.NsPerOp < two.NsPerOp && !ownThreads.MatchString(n) {
			lo, hi := slices.Min(runs(two)), slices.Max(runs(one))
			r := row{strings.TrimPrefix(n, "Benchmark"), one.NsPerOp / two.NsPerOp, lo > hi, lo > (1+slowMargin)*hi}
			if r.every {
				every++
			}
			if r.clear {
				clear++
			}
			slow = append(slow, r)
		}
	}
	sort.SliceStable(slow, func(i, j int) bool { return slow[i].ratio < slow[j].ratio })
	var b strings.Builder
	b.WriteString("\n## Two cores against one\n\n")
	var tc []string
	var tv []float64
	for _, be := range []string{"openblas1", "openblas"} {
		for _, m := range results[be]["BenchmarkTwoCores"].Each {
			if v, ok := m["two/one"]; ok {
				tc = append(tc, fmt.Sprintf("%.3f", v))
				tv = append(tv, v)
			}
		}
	}
	if len(tc) > 0 {
		fmt.Fprintf(&b, "BenchmarkTwoCores (LRSDL on AR gender, one core and two in turn within each run) two/one: %s; median %.3f.\n\n", strings.Join(tc, ", "), median(tv))
	}
	fmt.Fprintf(&b, "Benchmarks whose median time is longer on two cores (openblas) than on one (openblas1), "+
		"slowest first (benchmarks that set their own thread counts, TwoCores and GemmThreads, are left out). "+
		"Each pair of runs, one core then two, came from its own pass over the packages, minutes from the others; the last column says whether every two-core run was slower than every one-core run, "+
		"and **yes** that it was by more than %.0f %%. Slower in every run: %d; by more than %.0f %%: %d.", 100*slowMargin, every, 100*slowMargin, clear)
	if len(slow) == 0 {
		b.WriteString("\n")
		return b.String()
	}
	b.WriteString("\n\n| benchmark | openblas1/openblas time | every run slower |\n|---|---:|---|\n")
	for _, r := range slow {
		mark := "no"
		switch {
		case r.clear:
			mark = "**yes**"
		case r.every:
			mark = fmt.Sprintf("yes, by at most %.0f %%", 100*slowMargin)
		}
		fmt.Fprintf(&b, "| %s | %.2f | %s |\n", r.name, r.ratio, mark)
	}
	return b.String()
}

// slowMargin is the margin beyond which twoCores counts a benchmark slower
// on two cores in every run: code that runs on one goroutine either way
// reads slightly slower at GOMAXPROCS 2 in some benchmarks
// (UpdateDict_d1024k10, SparseRowsMul_M500K90), while a plain loop outside
// the library does not. Chosen from those; see bench/NOTES.md.
const slowMargin = 0.02

// runs returns r's runs, or its one time when it has none recorded.
func runs(r result) []float64 {
	if len(r.Runs) == 0 {
		return []float64{r.NsPerOp}
	}
	return r.Runs
}

func runTime(d time.Duration) string {
	if d == 0 {
		return "re-rendered from a saved log (-log)"
	}
	return d.Round(time.Second).String()
}

// median returns the median of v: the mean of the middle two for an even
// count.
func median(v []float64) float64 {
	s := slices.Sorted(slices.Values(v))
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
