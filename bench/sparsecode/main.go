// Command sparsecode writes the sparse-coding peer benchmark's problems as
// .npy files and times the library's coder and OMP on them.
//
//	go run ./bench/sparsecode -gen -dir out/sparsecode
//	go run ./bench/sparsecode -dir out/sparsecode -save > times.json
//
// Each problem (d, K, n) is a dictionary D (d×K) of Gaussian atoms scaled to
// unit norm and data Y (d×n) of Gaussian columns scaled to unit norm, from a
// fixed seed; lambda.npy holds the λ of the lasso cells and omp_T.npy the
// sparsity of the OMP cells. The timed run prints one JSON object per cell.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/sbinet/npyio"
	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/core"
)

type cell struct{ d, k, n int }

func (c cell) name() string { return fmt.Sprintf("d%dK%dn%d", c.d, c.k, c.n) }

var cells = []cell{{300, 50, 500}, {300, 500, 500}, {1024, 1010, 1000}}

var lambdas = []float64{0.001, 0.01, 0.1}

const ompT = 10

type record struct {
	Backend   string  `json:"backend"`
	Cell      string  `json:"cell"`
	Solver    string  `json:"solver"`
	Lambda    float64 `json:"lambda,omitempty"`
	T         int     `json:"T,omitempty"`
	Seconds   float64 `json:"seconds"`
	Algorithm string  `json:"algorithm,omitempty"`
	Stop      string  `json:"stop,omitempty"`
	Capped    int     `json:"capped"`
	Fallbacks int     `json:"fallbacks"`
	Sweeps    int     `json:"sweeps"`
	MaxSweeps int     `json:"max_sweeps"`
	Screened  int     `json:"screened"`
	MaxRelGap float64 `json:"max_rel_gap"`
	Objective float64 `json:"objective"`
	File      string  `json:"file,omitempty"`
}

func main() {
	dir := flag.String("dir", "out/sparsecode", "problem directory")
	gen := flag.Bool("gen", false, "write the problems and exit")
	save := flag.Bool("save", false, "save the codes as <dir>/<backend>/*.npy")
	procs := flag.Int("procs", 1, "GOMAXPROCS of the timed runs")
	only := flag.String("cells", "", "comma-separated cell names to run (default all)")
	algo := flag.String("algo", "auto", "coder algorithm: auto, cd, path, fista or admm")
	lams := flag.String("lambdas", "", "comma-separated λ to run (default all)")
	flag.Parse()
	if *gen {
		if err := generate(*dir); err != nil {
			log.Fatal(err)
		}
		return
	}
	if err := lrsdl.UseOpenBLAS(); err != nil {
		log.Printf("pure Go: %v", err)
	}
	runtime.GOMAXPROCS(*procs)
	backend := lrsdl.Backend()
	enc := json.NewEncoder(os.Stdout)
	ctx := context.Background()
	var opts core.EncodeOptions
	for a := core.AlgoAuto; a <= core.AlgoADMM; a++ {
		if a.String() == *algo {
			opts.Algorithm = a
		}
	}
	for _, c := range cells {
		if *only != "" && !slices.Contains(strings.Split(*only, ","), c.name()) {
			continue
		}
		D, err := load(filepath.Join(*dir, c.name()+"_D.npy"))
		if err != nil {
			log.Fatal(err)
		}
		Y, err := load(filepath.Join(*dir, c.name()+"_Y.npy"))
		if err != nil {
			log.Fatal(err)
		}
		for _, lam := range lambdas {
			if *lams != "" && !slices.Contains(strings.Split(*lams, ","), fmt.Sprint(lam)) {
				continue
			}
			X := mat.NewDense(c.k, c.n, nil)
			runtime.GC()
			t0 := time.Now()
			info, err := core.Encode(ctx, X, D, Y, lam, opts)
			sec := time.Since(t0).Seconds()
			if err != nil {
				log.Fatal(err)
			}
			r := record{Backend: backend, Cell: c.name(), Solver: "coder", Lambda: lam, Seconds: sec,
				Algorithm: info.Algorithm.String(), Stop: info.Stop.String(), Capped: info.Capped,
				Fallbacks: info.Fallbacks, Sweeps: info.Sweeps, MaxSweeps: info.MaxSweeps,
				Screened: info.Screened, MaxRelGap: info.MaxRelGap, Objective: info.Primal}
			if *save {
				r.File = filepath.Join(*dir, backend, fmt.Sprintf("%s_lam%g_X.npy", c.name(), lam))
				if err := store(r.File, X); err != nil {
					log.Fatal(err)
				}
			}
			if err := enc.Encode(r); err != nil {
				log.Fatal(err)
			}
		}
		X := mat.NewDense(c.k, c.n, nil)
		runtime.GC()
		t0 := time.Now()
		if err := core.OMP(ctx, X, D, Y, ompT, 0); err != nil {
			log.Fatal(err)
		}
		r := record{Backend: backend, Cell: c.name(), Solver: "omp", T: ompT, Seconds: time.Since(t0).Seconds()}
		if *save {
			r.File = filepath.Join(*dir, backend, fmt.Sprintf("%s_omp%d_X.npy", c.name(), ompT))
			if err := store(r.File, X); err != nil {
				log.Fatal(err)
			}
		}
		if err := enc.Encode(r); err != nil {
			log.Fatal(err)
		}
	}
}

// generate writes every cell's D and Y, lambda.npy and omp_T.npy.
func generate(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for i, c := range cells {
		rng := rand.New(rand.NewPCG(70, uint64(i)))
		if err := store(filepath.Join(dir, c.name()+"_D.npy"), unitCols(rng, c.d, c.k)); err != nil {
			return err
		}
		if err := store(filepath.Join(dir, c.name()+"_Y.npy"), unitCols(rng, c.d, c.n)); err != nil {
			return err
		}
	}
	if err := store(filepath.Join(dir, "lambda.npy"), lambdas); err != nil {
		return err
	}
	return store(filepath.Join(dir, "omp_T.npy"), []int64{ompT})
}

// unitCols returns a d×n matrix of Gaussian columns scaled to unit norm.
func unitCols(rng *rand.Rand, d, n int) *mat.Dense {
	a := mat.NewDense(d, n, nil)
	for i := 0; i < d; i++ {
		for j := 0; j < n; j++ {
			a.Set(i, j, rng.NormFloat64())
		}
	}
	for j := 0; j < n; j++ {
		s := 1 / mat.Norm(a.ColView(j), 2)
		for i := 0; i < d; i++ {
			a.Set(i, j, s*a.At(i, j))
		}
	}
	return a
}

func store(path string, v any) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := npyio.Write(f, v); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func load(path string) (*mat.Dense, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var m mat.Dense
	if err := npyio.Read(f, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &m, nil
}
