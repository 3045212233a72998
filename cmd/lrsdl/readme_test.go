package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The commands of the README's "Using the command" section run as written
// from the top of the repository.
func TestREADMECommands(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(b), "\n## Using the command\n")
	if !ok {
		t.Fatal(`README has no "Using the command" section`)
	}
	sec, _, _ = strings.Cut(sec, "\n## ")
	var cmds [][]string
	for _, line := range strings.Split(sec, "\n") {
		if strings.HasPrefix(line, "./lrsdl ") {
			cmds = append(cmds, strings.Fields(line)[1:])
		}
	}
	if len(cmds) < 5 {
		t.Fatalf("%d commands in the section, want methods, train, predict twice and eval", len(cmds))
	}
	testdata, err := filepath.Abs("../../testdata")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.Symlink(testdata, filepath.Join(dir, "testdata")); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	for _, args := range cmds {
		if testing.Short() && args[0] == "eval" {
			continue
		}
		code, o, e := runCmd(t, args...)
		if code != 0 {
			t.Fatalf("lrsdl %s: exit %d: %s", strings.Join(args, " "), code, e)
		}
		if args[0] == "predict" && !strings.Contains(strings.Join(args, " "), "-no-labels") && !strings.Contains(o, "accuracy") {
			t.Errorf("labelled predict prints no accuracy:\n%s", o)
		}
		if args[0] == "train" && !strings.Contains(e, "LRSDL: training on 700 samples") {
			t.Errorf("train reports no progress:\n%s", e)
		}
	}
	b, err = os.ReadFile("labels.csv")
	if err != nil || strings.Count(string(b), "\n") != 701 || !strings.HasPrefix(string(b), "sample,predicted\n") {
		t.Errorf("labels.csv: %v\n%.100s", err, b)
	}
}
