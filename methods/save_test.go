package methods_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"flag"
	"hash/crc64"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl/data"
	"github.com/lrsdl/lrsdl/methods"
)

var updateModel = flag.Bool("update-model", false, "rewrite testdata/fddl-v3.model and its labels")

// trainedFDDL returns a small FDDL trained on synthetic data, and the
// test samples.
func trainedFDDL(t *testing.T) (*methods.FDDL, *data.Dataset) {
	t.Helper()
	ds, _, err := data.SyntheticSplit(data.SyntheticOptions{PerClass: 20, Size: 8, Seed: 2}, 10)
	if err != nil {
		t.Fatal(err)
	}
	m := &methods.FDDL{Options: methods.FDDLOptions{K: 3, Iters: 2, Seed: 1}}
	if err := m.Fit(context.Background(), ds.Train.Y, ds.Train.Labels); err != nil {
		t.Fatal(err)
	}
	return m, ds
}

// A model saved by SaveFile comes back from LoadFile, and through Save and
// Load, ready to predict the same labels; bad files are errors naming the
// file and what is wrong.
func TestSaveLoad(t *testing.T) {
	m, ds := trainedFDDL(t)
	want, err := m.Predict(ds.Test.Y)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "m")
	for range 2 { // the second overwrites
		if err := methods.SaveFile(path, m); err != nil {
			t.Fatal(err)
		}
	}
	c, err := methods.LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := c.Predict(ds.Test.Y); err != nil || !slices.Equal(got, want) || c.Name() != "FDDL" {
		t.Errorf("%s predicts %v, %v; want %v", c.Name(), got, err, want)
	}
	file, _ := os.ReadFile(path)
	var buf bytes.Buffer
	if err := methods.Save(&buf, m); err != nil || !bytes.Equal(buf.Bytes(), file) {
		t.Fatalf("Save wrote %d bytes (%v), SaveFile %d", buf.Len(), err, len(file))
	}
	// Load reads one model and nothing after it.
	two := bytes.NewReader(append(slices.Clone(file), file...))
	for range 2 {
		if c, err := methods.Load(two); err != nil || c.Name() != "FDDL" {
			t.Fatalf("Load: %v", err)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("directory holds %v, want only the model", ents)
	}

	// Untrained models; a failed save keeps the old file.
	if err := methods.Save(&buf, &methods.LRSDL{}); !errors.Is(err, methods.ErrNotTrained) || !strings.Contains(err.Error(), "LRSDL has nothing to save") {
		t.Errorf("Save of an untrained model: %v", err)
	}
	if err := methods.SaveFile(path, &methods.SRC{}); err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "SRC has nothing to save") {
		t.Errorf("SaveFile of an untrained model: %v", err)
	}
	if err := methods.Save(&buf, nil); err == nil {
		t.Error("Save(nil): no error")
	}
	if now, _ := os.ReadFile(path); !bytes.Equal(now, file) {
		t.Error("a failed SaveFile changed the file")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("directory holds %v after failed saves", ents)
	}
	if err := methods.SaveFile(filepath.Join(dir, "no", "m"), m); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("SaveFile into a missing directory: %v", err)
	}

	// Bad files.
	for _, c := range []struct {
		name string
		file []byte
		want string
	}{
		{"extra data", append(slices.Clone(file), 0), "model: extra data after the end of the model"},
		{"truncated", file[:len(file)-1], "model: truncated"},
		{"checksum", func() []byte { b := slices.Clone(file); b[len(b)/2] ^= 1; return b }(), "checksum mismatch"},
		{"unknown options", edit(t, file, `"lambda1":`, `"lamdba1":`), `unknown options "lamdba1" of method FDDL`},
		{"unknown method", edit(t, file, "\x04\x00\x00\x00FDDL", "\x04\x00\x00\x00NOPE"), `unknown method "NOPE"`},
	} {
		p := filepath.Join(dir, c.name)
		os.WriteFile(p, c.file, 0o644)
		if _, err := methods.LoadFile(p); err == nil || !strings.Contains(err.Error(), p+": ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	if _, err := methods.LoadFile(filepath.Join(dir, "none")); err == nil || !strings.Contains(err.Error(), "none") {
		t.Errorf("a missing file: %v", err)
	}
}

// edit returns the model file b with its first old replaced by new, of the
// same length, and its CRC-64 (ECMA) checksum, the last 8 bytes,
// recomputed.
func edit(t *testing.T, b []byte, old, new string) []byte {
	i := bytes.Index(b, []byte(old))
	if i < 0 || len(old) != len(new) {
		t.Fatalf("no %q in the file", old)
	}
	b = slices.Clone(b[:len(b)-8])
	copy(b[i:], new)
	return binary.LittleEndian.AppendUint64(b, crc64.Checksum(b, crc64.MakeTable(crc64.ECMA)))
}

// Model files of the current format and of version 2, committed, load and
// predict the labels recorded beside them when they were written. The
// version 2 file, an LRSDL model trained on unit-norm samples, was
// written by data.WriteModelInfo of the release before version 3.
func TestCommittedModels(t *testing.T) {
	ds, _, err := data.SyntheticSplit(data.SyntheticOptions{PerClass: 20, Size: 8, Seed: 2}, 10)
	if err != nil {
		t.Fatal(err)
	}
	if *updateModel {
		m, _ := trainedFDDL(t)
		if err := methods.SaveFile("testdata/fddl-v3.model", m); err != nil {
			t.Fatal(err)
		}
		pred, err := m.Predict(ds.Test.Y)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, l := range pred {
			b.WriteString(strconv.Itoa(l) + "\n")
		}
		if err := os.WriteFile("testdata/fddl-v3.labels", []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The labels are of the test samples as they are (v3) or scaled to unit
	// norm (v2).
	for _, c := range []struct {
		name, method string
		version      byte
		Y            mat.Matrix
	}{{"fddl-v3", "FDDL", 3, ds.Test.Y}, {"lrsdl-v2", "LRSDL", 2, data.NormalizeColumns(ds.Test.Y)}} {
		path := "testdata/" + c.name + ".model"
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if raw[8] != c.version {
			t.Errorf("%s: format version %d, want %d", path, raw[8], c.version)
		}
		m, err := methods.LoadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		raw, err = os.ReadFile("testdata/" + c.name + ".labels")
		if err != nil {
			t.Fatal(err)
		}
		var want []int
		for _, f := range strings.Fields(string(raw)) {
			l, err := strconv.Atoi(f)
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, l)
		}
		got, err := m.Predict(c.Y)
		if err != nil || m.Name() != c.method || !slices.Equal(got, want) {
			t.Errorf("%s: %s predicts %v (%v), want %v", path, m.Name(), got, err, want)
		}
	}
}
