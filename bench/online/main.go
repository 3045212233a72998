// Command online measures minibatch LRSDL (package online) streamed from
// disk: for each N it writes N synthetic face-like samples as .npy shards,
// chunk by chunk, then trains one pass over them in a child process and
// prints the time per epoch, the time per sample and the child's peak
// resident memory (VmHWM), which must not grow with N. With -accuracy it
// also compares minibatch with batch training (methods.LRSDL) on the data
// sets of testdata.
//
//	go run -tags openblas ./bench/online -n 1000,10000,100000
//	go run -tags openblas ./bench/online -million        # adds N = 10⁶ (~2 GB of float32 shards)
//	go run -tags openblas ./bench/online -n '' -accuracy -sets argender,coil,flower
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/blas"
	"github.com/lrsdl/lrsdl/online"
	"github.com/lrsdl/lrsdl/stream"
)

var (
	ns       = flag.String("n", "1000,10000,100000", "comma-separated sample counts N")
	million  = flag.Bool("million", false, "add N = 1000000 (about 2 GB of shards and a long run)")
	dim      = flag.Int("d", 512, "dimension d")
	classes  = flag.Int("C", 100, "classes C")
	k        = flag.Int("k", 10, "atoms per class k")
	k0       = flag.Int("k0", 10, "shared atoms k0")
	batch    = flag.Int("batch", 256, "minibatch size")
	shard    = flag.Int("shard", 10000, "samples per shard")
	dir      = flag.String("dir", "", "directory for the shards (default: a temporary one, removed at the end)")
	test     = flag.Int("test", 1000, "synthetic test samples")
	accuracy = flag.Bool("accuracy", false, "compare minibatch and batch LRSDL on testdata")
	testdata = flag.String("testdata", "testdata", "directory of argender.mat and the other data sets")
	sets     = flag.String("sets", "argender,coil,flower", "data sets of -accuracy")
	epochs   = flag.Int("epochs", 0, "epochs of the -accuracy comparison (0: the batch method's outer iterations)")
	own      = flag.Int("own", 0, "online.Options.OwnIters (0: its default, -1: off)")
	child    = flag.Int64("child", 0, "internal: train on the N samples in -dir and print one JSON result")
)

// result is what a child prints.
type result struct {
	N          int64   `json:"n"`
	Epoch      float64 `json:"epoch_s"`
	PerSample  float64 `json:"per_sample_ms"`
	PeakRSS    int64   `json:"peak_rss_kb"`     // after the epoch
	PeakAll    int64   `json:"peak_rss_all_kb"` // after the test predictions too
	Accuracy   float64 `json:"accuracy"`
	DiskBytes  int64   `json:"disk_bytes"`
	WriteSecs  float64 `json:"write_s"`
	Backend    string  `json:"backend"`
	GOMAXPROCS int     `json:"gomaxprocs"`
}

func main() {
	log.SetFlags(0)
	flag.Parse()
	blas.Setup()
	if *child > 0 {
		if err := train(*child); err != nil {
			log.Fatal(err)
		}
		return
	}
	var list []int64
	for _, f := range strings.Split(*ns, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil || n < 1 {
			log.Fatalf("bad -n entry %q", f)
		}
		list = append(list, n)
	}
	if *million {
		list = append(list, 1000000)
	}
	if len(list) > 0 {
		fmt.Printf("minibatch LRSDL streamed from disk: d=%d C=%d k=%d k0=%d batch=%d, one epoch, backend %s\n", *dim, *classes, *k, *k0, *batch, lrsdl.Backend())
		fmt.Printf("%9s %10s %12s %14s %12s %14s %10s %9s\n", "N", "write s", "epoch s", "ms/sample", "peak RSS MB", "+predict MB", "disk MB", "accuracy")
	}
	for _, n := range list {
		r, err := scale(n)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%9d %10.1f %12.1f %14.3f %12.1f %14.1f %10.1f %8.2f%%\n", r.N, r.WriteSecs, r.Epoch, r.PerSample, float64(r.PeakRSS)/1024, float64(r.PeakAll)/1024, float64(r.DiskBytes)/1e6, r.Accuracy)
	}
	if *accuracy {
		if err := compare(); err != nil {
			log.Fatal(err)
		}
	}
}

// scale writes N samples as shards and trains on them in a child process.
func scale(n int64) (result, error) {
	var r result
	root := *dir
	if root == "" {
		tmp, err := os.MkdirTemp("", "lrsdl-online-")
		if err != nil {
			return r, err
		}
		defer os.RemoveAll(tmp)
		root = tmp
	}
	sd := filepath.Join(root, fmt.Sprintf("N%d", n))
	if err := os.RemoveAll(sd); err != nil {
		return r, err
	}
	if err := os.MkdirAll(sd, 0o755); err != nil {
		return r, err
	}
	defer os.RemoveAll(sd)
	start := time.Now()
	bytes, err := writeShards(sd, n)
	if err != nil {
		return r, err
	}
	ws := time.Since(start).Seconds()
	args := []string{"-child", strconv.FormatInt(n, 10), "-dir", sd}
	flag.Visit(func(f *flag.Flag) {
		if f.Name != "child" && f.Name != "dir" && f.Name != "n" && f.Name != "million" && f.Name != "accuracy" {
			args = append(args, "-"+f.Name, f.Value.String())
		}
	})
	cmd := exec.Command(os.Args[0], args...)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return r, fmt.Errorf("N=%d: %v", n, err)
	}
	if err := json.Unmarshal(out, &r); err != nil {
		return r, fmt.Errorf("N=%d: child said %q: %v", n, out, err)
	}
	r.DiskBytes, r.WriteSecs = bytes, ws
	return r, nil
}

// source returns the synthetic training source of N samples.
func source(n int64) *stream.FaceLike {
	return &stream.FaceLike{C: *classes, D: *dim, N: n, Chunk: *shard, Seed: 1, SampleSeed: 2}
}

// writeShards writes the N training samples as float32 X_*.npy/y_*.npy
// pairs of -shard samples, one chunk in memory at a time.
func writeShards(dir string, n int64) (int64, error) {
	src := source(n)
	var total int64
	for i := 0; ; i++ {
		c, err := src.Next(context.Background())
		if err == io.EOF {
			return total, nil
		}
		if err != nil {
			return total, err
		}
		for _, f := range []struct {
			name  string
			write func(io.Writer) error
		}{
			{fmt.Sprintf("X_%05d.npy", i), func(w io.Writer) error { return stream.WriteNPY(w, c.Y, true) }},
			{fmt.Sprintf("y_%05d.npy", i), func(w io.Writer) error { return stream.WriteLabelsNPY(w, c.Labels) }},
		} {
			nb, err := writeFile(filepath.Join(dir, f.name), f.write)
			if err != nil {
				return total, err
			}
			total += nb
		}
	}
}

func writeFile(path string, write func(io.Writer) error) (int64, error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	if err := write(bw); err != nil {
		f.Close()
		return 0, err
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return 0, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return 0, err
	}
	return fi.Size(), f.Close()
}

// train is the child: one epoch over the shards in -dir, then the accuracy
// on synthetic test samples of the same classes, predicted chunk by chunk
// by methods.LRSDL restored from the model's state.
func train(n int64) error {
	src, err := stream.OpenDir(*dir, 0)
	if err != nil {
		return err
	}
	defer src.Close()
	if src.Len() != n {
		return fmt.Errorf("%s holds %d samples, want %d", *dir, src.Len(), n)
	}
	m, err := online.New(online.Options{Batch: *batch, Epochs: 1, K: *k, K0: *k0, OwnIters: *own})
	if err != nil {
		return err
	}
	start := time.Now()
	if err := m.Fit(context.Background(), src); err != nil {
		return err
	}
	el := time.Since(start).Seconds()
	peak := peakRSS()
	c, err := m.Classifier()
	if err != nil {
		return err
	}
	ts := &stream.FaceLike{C: *classes, D: *dim, N: int64(*test), Chunk: 1000, Seed: 1, SampleSeed: 3}
	var ok, tot int
	for {
		ch, err := ts.Next(context.Background())
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		pred, err := c.Predict(ch.Y)
		if err != nil {
			return err
		}
		for i, p := range pred {
			if p == ch.Labels[i] {
				ok++
			}
			tot++
		}
	}
	r := result{N: n, Epoch: el, PerSample: 1000 * el / float64(n), PeakRSS: peak, PeakAll: peakRSS(),
		Accuracy: 100 * float64(ok) / float64(tot), Backend: lrsdl.Backend(), GOMAXPROCS: maxprocs()}
	return json.NewEncoder(os.Stdout).Encode(r)
}

// peakRSS returns the process's peak resident set size in kB (VmHWM), or −1.
func peakRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmHWM:" {
			v, err := strconv.ParseInt(f[1], 10, 64)
			if err == nil {
				return v
			}
		}
	}
	return -1
}
