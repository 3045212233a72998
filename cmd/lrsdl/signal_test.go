//go:build unix

package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// buildCommand builds the command into dir and returns its path.
func buildCommand(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "lrsdl")
	out, err := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// signalRun runs the command bin with args writing the model out, which
// holds old, sends it sig when wait, given the output's directory and the
// command's stderr, returns, and checks that it stops cleanly: exit 1 saying
// why, no temporary file, the old model intact. A run that ended before the
// signal (exit 0), or was interrupted after writing its model whole (it
// says so), is reported as finished. It returns the time from the signal
// to the exit; the only time limit is a guard against a hang.
func signalRun(t *testing.T, bin string, args []string, out, old string, sig syscall.Signal, wait func(dir string, stderr *bufio.Scanner)) (took time.Duration, finished bool) {
	t.Helper()
	dir := filepath.Dir(out)
	if err := os.WriteFile(out, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(stderr)
	wait(dir, lines)
	sent := time.Now()
	cmd.Process.Signal(sig)
	var rest bytes.Buffer
	done := make(chan error, 1)
	go func() {
		for lines.Scan() {
			rest.WriteString(lines.Text() + "\n")
		}
		io.Copy(&rest, stderr)
		done <- cmd.Wait()
	}()
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		<-done
		t.Errorf("%v: still running two minutes after the signal", args)
	}
	took = time.Since(sent)
	code := cmd.ProcessState.ExitCode()
	if tmp := temps(t, dir); len(tmp) > 0 {
		t.Errorf("%v: left %v", args, tmp)
	}
	if code == 0 {
		t.Logf("%v: finished before %s", args, signalNames[sig])
		return took, true
	}
	if say := "interrupted by " + signalNames[sig]; code != 1 || !strings.Contains(rest.String(), say) {
		t.Errorf("%v: exit %d, want 1 saying %q; stderr ends %q", args, code, say, rest.String())
	}
	b, err := os.ReadFile(out)
	if strings.Contains(rest.String(), "after the model was written to "+out) {
		// Interrupted while scoring the test set: the new model is whole.
		if err != nil || !bytes.HasPrefix(b, []byte("LRSDLMDL")) {
			t.Errorf("%v: said the model was written, but the file holds %.20q (%v)", args, b, err)
		}
		return took, true
	}
	if string(b) != old {
		t.Errorf("%v: the old model became %.20q (%v)", args, b, err)
	}
	return took, false
}

// whenPrepared waits until dir holds the command's temporary output file.
func whenPrepared(dir string, _ *bufio.Scanner) {
	for len(temps(nil, dir)) == 0 {
		time.Sleep(time.Millisecond)
	}
}

// TestSignals sends SIGINT, SIGTERM and SIGHUP to 'lrsdl train' at a few
// moments: when its output file is prepared and after its first and third
// iterations. Each time the command stops, says why, leaves no temporary
// file and the old model intact. The latencies are logged (go test
// ./cmd/lrsdl -run TestSignals -v).
func TestSignals(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the command")
	}
	bin := buildCommand(t, t.TempDir())
	after := func(prefix string) func(string, *bufio.Scanner) {
		return func(_ string, lines *bufio.Scanner) {
			for lines.Scan() && !strings.HasPrefix(lines.Text(), prefix) {
			}
		}
	}
	moments := []struct {
		name string
		wait func(string, *bufio.Scanner)
	}{{"prepared", whenPrepared}, {"iter 1", after("FDDL: iter 1 ")}, {"iter 3", after("FDDL: iter 3 ")}}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		for _, m := range moments {
			out := filepath.Join(t.TempDir(), "m.model")
			args := []string{"train", "-v", "-data", digits, "-method", "FDDL", "-p", "k=10", "-p", "tol=0", "-iters", "1000", "-o", out}
			took, _ := signalRun(t, bin, args, out, "the old model", sig, m.wait)
			t.Logf("%s at %s: %v", signalNames[sig], m.name, took.Round(time.Millisecond))
		}
	}
}

var (
	signalMethods = flag.String("signals.methods", "", "TestSignalsMethods: comma-separated methods, or all")
	signalData    = flag.String("signals.data", digits, "TestSignalsMethods: the data file")
	signalArgs    = flag.String("signals.args", "", "TestSignalsMethods: more arguments of train, space-separated")
	signalSeed    = flag.Uint64("signals.seed", 1, "TestSignalsMethods: seed of the moments")
	signalMax     = flag.Duration("signals.max", 0, "TestSignalsMethods: fail a latency above this (0: only log)")
)

// signalWindow is the span after the output file is prepared within which
// TestSignalsMethods sends its signals.
const signalWindow = 4 * time.Second

// TestSignalsMethods measures, for the methods of -signals.methods on the
// data of -signals.data, the latency of SIGINT, SIGTERM and SIGHUP, each
// sent once at a moment drawn (seeded by -signals.seed) within signalWindow
// after the output file is prepared, with the same checks as TestSignals,
// and logs a table of the latencies:
//
//	go test ./cmd/lrsdl -run TestSignalsMethods -v -signals.methods all -signals.data testdata/coil100-32x32.mat
//
// (a data path is relative to cmd/lrsdl). With -signals.max a latency
// above it fails the test.
func TestSignalsMethods(t *testing.T) {
	if *signalMethods == "" {
		t.Skip("give -signals.methods")
	}
	bin := buildCommand(t, t.TempDir())
	names := strings.Split(*signalMethods, ",")
	if *signalMethods == "all" {
		names = methodNames()
	}
	rng := rand.New(rand.NewPCG(*signalSeed, 0x5164))
	var table strings.Builder
	var worst time.Duration
	for _, m := range names {
		fmt.Fprintf(&table, "%-8s", m)
		for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
			delay := time.Duration(rng.Int64N(int64(signalWindow)))
			out := filepath.Join(t.TempDir(), "m.model")
			args := append([]string{"train", "-q", "-data", *signalData, "-method", m, "-o", out}, strings.Fields(*signalArgs)...)
			took, finished := signalRun(t, bin, args, out, "the old model", sig, func(dir string, s *bufio.Scanner) {
				whenPrepared(dir, s)
				time.Sleep(delay)
			})
			if finished {
				fmt.Fprintf(&table, "  %s at %5.2fs: finished", signalNames[sig], delay.Seconds())
				continue
			}
			worst = max(worst, took)
			if *signalMax > 0 && took > *signalMax {
				t.Errorf("%s: %s %v after the start: exit after %v, above -signals.max", m, signalNames[sig], delay.Round(time.Millisecond), took.Round(time.Millisecond))
			}
			fmt.Fprintf(&table, "  %s at %5.2fs: %6.3fs", signalNames[sig], delay.Seconds(), took.Seconds())
		}
		table.WriteString("\n")
	}
	t.Logf("latency from the signal to the exit, %s:\n%sworst %.3fs", *signalData, table.String(), worst.Seconds())
}

// temps lists the temporary files in dir; t may be nil outside a test's
// goroutine.
func temps(t *testing.T, dir string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil && t != nil {
		t.Fatal(err)
	}
	var ns []string
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") {
			ns = append(ns, e.Name())
		}
	}
	return ns
}

// A second signal removes the temporary files and ends the process at
// once with 128+signal.
func TestSecondSignal(t *testing.T) {
	dir := t.TempDir()
	o, err := createOut(nil, "o", filepath.Join(dir, "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer o.abort()
	sigs := make(chan os.Signal, 2)
	cause := make(chan error, 1)
	exit := make(chan int, 1)
	go onSignals(sigs, func(err error) { cause <- err }, func(code int) { exit <- code })
	sigs <- syscall.SIGTERM
	if err := <-cause; err == nil || !strings.Contains(err.Error(), "by SIGTERM") {
		t.Errorf("cancelled by %v, want SIGTERM", err)
	}
	if len(temps(t, dir)) != 1 {
		t.Errorf("the first signal removed the temporary file; the work does that when it stops")
	}
	sigs <- syscall.SIGHUP
	if code := <-exit; code != 128+int(syscall.SIGHUP) {
		t.Errorf("exit %d, want %d", code, 128+int(syscall.SIGHUP))
	}
	if tmp := temps(t, dir); len(tmp) > 0 {
		t.Errorf("left %v", tmp)
	}
}

// Loading stops waiting for the data when the context is cancelled: here
// a FIFO that no one writes, on which reading would block for ever.
func TestLoadCancelled(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "data.csv")
	if err := mkfifo(fifo); err != nil {
		t.Skip(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	df := dataFlags{path: fifo, fs: flag.NewFlagSet("x", flag.ContinueOnError)}
	if _, err := df.load(ctx, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("load: %v, want context.Canceled", err)
	}
	// Let the abandoned reader finish.
	if w, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
		w.Close()
	}
}
