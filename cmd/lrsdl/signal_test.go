//go:build unix

package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
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

// TestSignals sends SIGINT, SIGTERM and SIGHUP to 'lrsdl train' at a few
// moments: when its output file is prepared and after its first and third
// iterations. Each time the command stops, says why, leaves no temporary
// file and the old model intact. The
// latencies are logged (go test ./cmd/lrsdl -run TestSignals -v); the only
// time limit is a guard against a hang.
func TestSignals(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the command")
	}
	bin := buildCommand(t, t.TempDir())
	const old = "the old model"
	type moment struct {
		name  string
		after string // signal after this line on stderr ("": when the temporary file exists)
	}
	moments := []moment{{"prepared", ""}, {"iter 1", "FDDL: iter 1 "}, {"iter 3", "FDDL: iter 3 "}}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		for _, m := range moments {
			dir := t.TempDir()
			out := filepath.Join(dir, "m.model")
			if err := os.WriteFile(out, []byte(old), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(bin, "train", "-v", "-data", digits, "-method", "FDDL", "-p", "k=10", "-p", "tol=0", "-iters", "1000", "-o", out)
			stderr, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			var rest bytes.Buffer
			lines := bufio.NewScanner(stderr)
			if m.after == "" {
				for len(temps(t, dir)) == 0 {
					time.Sleep(time.Millisecond)
				}
			} else {
				for lines.Scan() && !strings.HasPrefix(lines.Text(), m.after) {
				}
			}
			sent := time.Now()
			cmd.Process.Signal(sig)
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
				t.Errorf("%v at %s: still running two minutes after the signal", sig, m.name)
			}
			took := time.Since(sent)
			code := cmd.ProcessState.ExitCode()
			if cmd.ProcessState.Exited() {
				t.Logf("%s at %s: exit %d after %v", signalNames[sig], m.name, code, took.Round(time.Millisecond))
			}
			say := "interrupted by " + signalNames[sig]
			if code != 1 || !strings.Contains(rest.String(), say) {
				t.Errorf("%v at %s: exit %d, want 1 saying %q; stderr ends %q", sig, m.name, code, say, rest.String())
			}
			if tmp := temps(t, dir); len(tmp) > 0 {
				t.Errorf("%v at %s: left %v", sig, m.name, tmp)
			}
			if b, err := os.ReadFile(out); string(b) != old {
				t.Errorf("%v at %s: the old model became %.20q (%v)", sig, m.name, b, err)
			}
		}
	}
}

// temps lists the temporary files in dir.
func temps(t *testing.T, dir string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
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
