package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"hash/crc64"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/internal/modelfile"
	"github.com/lrsdl/lrsdl/matfile"
)

// checksums match the hexadecimal checksums of corrupt-file errors, which
// depend on the model's bits and so on the backend; haveLists the lists of
// registered methods and options, which grow.
var (
	checksums = regexp.MustCompile(`[0-9a-f]{16}`)
	haveLists = regexp.MustCompile(`\(have [^)]*\)`)
)

var update = flag.Bool("update", false, "rewrite testdata/badinputs.md from the errors the command gives")

// badFixtures makes the files named in testdata/badinputs.txt and returns
// them by placeholder.
func badFixtures(t *testing.T) map[string]string {
	t.Helper()
	dir := t.TempDir()
	f := map[string]string{
		"{digits}": digits, "{ar}": "../../testdata/argender.mat", "{two}": twoClassCSV(t, 10),
		"{dir}": dir, "{nodir}": filepath.Join(dir, "none"), "{out}": filepath.Join(dir, "out"),
		"{missing}": filepath.Join(dir, "missing.csv"),
	}
	write := func(name, content string) {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		f["{"+strings.SplitN(name, ".", 2)[0]+"}"] = p
	}
	write("txt.txt", "hello\n")
	write("notgz.csv.gz", "1,2,3\n")
	write("empty.csv", "")
	write("nolabels.csv", "1,2,3.5\n4,5,6.5\n7,8,9.5\n")
	write("nan.csv", "1,2,0\n3,NaN,1\n5,6,0\n7,8,1\n")
	write("inf.csv", "1,2,0\n3,+Inf,1\n5,6,0\n7,8,1\n")
	write("ragged.csv", "1,2,0\n3,4,5,1\n")
	write("onecls.csv", "1,2,7\n3,4,7\n5,6,7\n")
	write("zeros.csv", "0,0,1\n0,0,2\n0,0,1\n0,0,2\n")
	for name, ms := range map[string]map[string]*mat.Dense{
		"square": {"X": mat.NewDense(4, 4, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 1, 2, 3, 4, 5, 6, 7}), "gnd": mat.NewDense(1, 4, []float64{1, 2, 1, 2})},
		"nodata": {"gnd": mat.NewDense(1, 4, []float64{1, 2, 1, 2})},
	} {
		f["{"+name+"}"] = filepath.Join(dir, name+".mat")
		if err := matfile.Write(f["{"+name+"}"], nil, ms); err != nil {
			t.Fatal(err)
		}
	}
	write("typo.csv", "1.0,2.0,abc,4,1\n1,2,3,4,0\n")
	write("wordlabel.csv", "1,2,3,4,one\n1,2,3,4,0\n")
	// Other names of {two}, and outputs that are not regular files; a
	// placeholder left empty skips its cases on systems without it.
	f["{link}"], f["{hard}"] = filepath.Join(dir, "link.csv"), filepath.Join(dir, "hard.csv")
	if os.Symlink(f["{two}"], f["{link}"]) != nil || os.Link(f["{two}"], f["{hard}"]) != nil {
		f["{link}"], f["{hard}"] = "", ""
	}
	f["{fifo}"] = filepath.Join(dir, "fifo")
	if mkfifo(f["{fifo}"]) != nil {
		f["{fifo}"] = ""
	}
	f["{full}"] = "/dev/full"
	if _, err := os.Stat("/dev/full"); err != nil {
		f["{full}"] = ""
	}

	model := filepath.Join(dir, "model")
	if code, _, e := runCmd(t, "train", "-q", "-data", f["{two}"], "-method", "FDDL", "-iters", "2", "-o", model); code != 0 {
		t.Fatalf("training the model: %s", e)
	}
	f["{model}"] = model
	good, _ := os.ReadFile(model)
	write("trunc.model", string(good[:len(good)/2]))
	v9 := bytes.Clone(good)
	v9[8] = 9
	write("v9.model", string(reseal(v9)))
	crc := bytes.Clone(good)
	crc[len(crc)/2] ^= 1
	write("crc.model", string(crc))
	// Models with a valid checksum and bad content.
	st, _ := readState(t, model)
	const mark = 12345.678
	name := st.Names[0]
	was := st.Matrices[name].At(0, 0)
	st.Matrices[name].Set(0, 0, mark)
	var buf bytes.Buffer
	if err := modelfile.Encode(&buf, st); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		v    float64
	}{{"nanmodel", math.NaN()}, {"infmodel", math.Inf(-1)}, {"hugemodel", 1e300}} {
		b := bytes.Clone(buf.Bytes())
		at := bytes.Index(b, binary.LittleEndian.AppendUint64(nil, math.Float64bits(mark)))
		binary.LittleEndian.PutUint64(b[at:], math.Float64bits(c.v))
		write(c.name+".model", string(reseal(b)))
	}
	st.Matrices[name].Set(0, 0, was)
	// Checksum-valid models that training does not produce.
	for _, c := range []struct {
		name string
		edit func(st *lrsdl.State)
	}{
		{"bigmeans", func(st *lrsdl.State) { st.Matrices["Mc"].Scale(1e150, st.Matrices["Mc"]) }},
		{"bigatoms", func(st *lrsdl.State) { st.Matrices["Dbar"].Scale(1e150, st.Matrices["Dbar"]) }},
		{"zeroatoms", func(st *lrsdl.State) { st.Matrices["Dbar"].Zero() }},
		{"badopt", func(st *lrsdl.State) {
			st.Options = []byte(strings.Replace(string(st.Options), "{", `{"lamda1":0.5,`, 1))
		}},
	} {
		st, _ := readState(t, model)
		c.edit(st)
		p := filepath.Join(dir, c.name+".model")
		writeState(t, p, st)
		f["{"+c.name+"}"] = p
	}
	st.Method = "NOPE"
	p := filepath.Join(dir, "nomethod.model")
	writeState(t, p, st)
	f["{nomethod}"] = p
	st.Method = "FDDL"
	delete(st.Matrices, name)
	st.Names = st.Names[1:]
	p = filepath.Join(dir, "nomatrix.model")
	writeState(t, p, st)
	f["{nomatrix}"] = p
	return f
}

// readState returns the state and info of the model file path.
func readState(t *testing.T, path string) (*lrsdl.State, modelfile.Info) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, info, err := modelfile.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	return st, info
}

// writeState writes st to a model file at path, whatever its method and
// content.
func writeState(t *testing.T, path string, st *lrsdl.State) {
	t.Helper()
	var buf bytes.Buffer
	if err := modelfile.Encode(&buf, st); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// reseal recomputes the checksum of an edited model file.
func reseal(b []byte) []byte {
	b = b[:len(b)-8]
	return binary.LittleEndian.AppendUint64(b, crc64.Checksum(b, crc64.MakeTable(crc64.ECMA)))
}

// Every bad input of testdata/badinputs.txt gets a one-line error, exit 1
// (2 for usage errors), no panic and no file left behind; the errors are
// those recorded in testdata/badinputs.md.
func TestBadInputs(t *testing.T) {
	src, err := os.ReadFile("testdata/badinputs.txt")
	if err != nil {
		t.Fatal(err)
	}
	fx := badFixtures(t)
	before := dirList(t, fx["{dir}"])
	// Placeholders by length, longest first, to map paths back.
	var names []string
	for k := range fx {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool { return len(fx[names[i]]) > len(fx[names[j]]) })

	var md strings.Builder
	md.WriteString("# Bad inputs and the errors they get\n\n")
	md.WriteString("Generated by `go test ./cmd/lrsdl -run TestBadInputs -update` from testdata/badinputs.txt,\n")
	md.WriteString("which says what each error must name. `{two}` is a two-class CSV file, `{ar}` AR gender,\n")
	md.WriteString("`{model}` a model trained on `{two}`; the others are named for what is wrong with them.\n")
	n := 0
	for _, line := range strings.Split(string(src), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "":
			continue
		case strings.HasPrefix(line, "# ") && !strings.Contains(line, "{") && n > 0 || line == "# Command line":
			fmt.Fprintf(&md, "\n## %s\n\n| command | exit | error |\n|---|---|---|\n", strings.TrimPrefix(line, "# "))
			continue
		case strings.HasPrefix(line, "#"):
			continue
		}
		n++
		spec, want, ok := strings.Cut(line, " => ")
		fields := strings.Fields(spec)
		if !ok || len(fields) < 2 {
			t.Fatalf("bad line %q: want EXIT ARGS... => TEXT", line)
		}
		wantCode, err := strconv.Atoi(fields[0])
		if err != nil {
			t.Fatalf("bad line %q: %v", line, err)
		}
		line = strings.Join(fields[1:], " ")
		args := fields[1:]
		skip := false
		for i, a := range args {
			for _, k := range names {
				skip = skip || strings.Contains(a, k) && fx[k] == ""
				a = strings.ReplaceAll(a, k, fx[k])
			}
			args[i] = a
		}
		if skip {
			t.Logf("%s: skipped, not on this system", line)
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		code, _, e := runCtx(ctx, args...)
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			t.Errorf("%s: did not fail within a minute", line)
		}
		cancel()
		// Progress lines may come first; the error is the last line.
		lines := strings.Split(strings.TrimSuffix(e, "\n"), "\n")
		msg := lines[len(lines)-1]
		for _, k := range names {
			if fx[k] != "" {
				msg = strings.ReplaceAll(msg, fx[k], k)
			}
		}
		msg = checksums.ReplaceAllString(msg, "…")
		msg = haveLists.ReplaceAllString(msg, "(have …)")
		switch {
		case code != wantCode:
			t.Errorf("%s: exit %d, want %d; stderr %q", line, code, wantCode, e)
		case strings.HasSuffix(want, "$") && !strings.HasSuffix(msg, strings.TrimSuffix(want, "$")):
			t.Errorf("%s: error %q does not end in %q", line, msg, strings.TrimSuffix(want, "$"))
		case !strings.HasSuffix(want, "$") && !strings.Contains(msg, want):
			t.Errorf("%s: error %q does not say %q", line, msg, want)
		case !strings.HasSuffix(e, "\n") || !strings.HasPrefix(msg, "lrsdl") || slices.ContainsFunc(lines[:len(lines)-1], func(l string) bool { return strings.HasPrefix(l, "lrsdl") }):
			t.Errorf("%s: the error is not one line: %q", line, e)
		case strings.Contains(e, "panic") || strings.Contains(e, "goroutine") || strings.Contains(e, "internal error"):
			t.Errorf("%s: %q", line, e)
		case strings.Contains(e, "LoadOptions.") || strings.Contains(e, "Options."):
			t.Errorf("%s: error names a Go field: %q", line, e)
		}
		if after := dirList(t, fx["{dir}"]); after != before {
			t.Errorf("%s: left files behind: %s", line, after)
		}
		fmt.Fprintf(&md, "| `lrsdl %s` | %d | %s |\n", strings.ReplaceAll(line, "|", `\|`), code, strings.ReplaceAll(msg, "|", `\|`))
	}
	if n < 40 {
		t.Errorf("%d bad inputs, want at least 40", n)
	}
	// The table of errors documents them; it must list every case, but
	// the wording of the errors may change without rewriting it.
	const table = "testdata/badinputs.md"
	if *update {
		if err := os.WriteFile(table, []byte(md.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	doc, err := os.ReadFile(table)
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range strings.Split(md.String(), "\n") {
		if cmd, _, ok := strings.Cut(row, "` |"); ok && strings.HasPrefix(row, "| `lrsdl") && !strings.Contains(string(doc), cmd+"` |") {
			t.Errorf("%s has no row for %s`; run go test ./cmd/lrsdl -run TestBadInputs -update", table, cmd)
		}
	}
}

// dirList lists the names in dir.
func dirList(t *testing.T, dir string) string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var ns []string
	for _, e := range ents {
		ns = append(ns, e.Name())
	}
	return strings.Join(ns, " ")
}
