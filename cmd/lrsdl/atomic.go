package main

import (
	"encoding/csv"
	"fmt"
	"image/png"
	"io"
	"os"

	"gonum.org/v1/plot"

	"github.com/lrsdl/lrsdl/internal/atomicfile"
	"github.com/lrsdl/lrsdl/report"
)

// outputDoc says, for -h, how an output file is written.
const outputDoc = "; written whole or not at all (a temporary file renamed into place, keeping an existing file's mode), " +
	"a symlink's target is written, a device or FIFO is written in place, an input of the command is refused"

// outFile is an output file of the command, given by a flag.
type outFile struct {
	flag, path string
	f          *atomicfile.File
}

// createOut prepares path, given by the command's flag, for writing, so
// that an unwritable path is reported before any long work. A path that is
// one of the command's inputs, named by their flags, is refused. Stale
// temporary files of path are removed and reported on rep.
func createOut(rep *reporter, flag, path string, inputs ...string) (*outFile, error) {
	if st, err := os.Stat(path); err == nil {
		for i := 0; i+1 < len(inputs); i += 2 {
			if in, err := os.Stat(inputs[i+1]); err == nil && os.SameFile(st, in) {
				return nil, usagef("-%s %s: is the input %s %s; refusing to overwrite it", flag, path, inputs[i], inputs[i+1])
			}
		}
	}
	f, err := atomicfile.Create(path)
	if err != nil {
		return nil, fmt.Errorf("-%s %s: %v", flag, path, err)
	}
	for _, s := range f.Stale {
		rep.event("removed %s, a temporary file left by an interrupted run", s)
	}
	return &outFile{flag: flag, path: path, f: f}, nil
}

// commit writes the content made by write and puts the file in place.
func (o *outFile) commit(write func(io.Writer) error) error {
	if err := o.f.Commit(write); err != nil {
		return fmt.Errorf("-%s %s: %v", o.flag, o.path, err)
	}
	return nil
}

// abort discards the file unless committed; it may be deferred.
func (o *outFile) abort() {
	if o != nil {
		o.f.Abort()
	}
}

// writePNG draws plots, a grid of rows, into the PNG file path atomically.
func writePNG(rep *reporter, path string, plots [][]*plot.Plot, width, height int) error {
	img, err := report.Render(plots, width, height)
	if err != nil {
		return err
	}
	o, err := createOut(rep, "out", path)
	if err != nil {
		return err
	}
	return o.commit(func(w io.Writer) error { return png.Encode(w, img) })
}

// writeCSV writes rows to the file path atomically.
func writeCSV(rep *reporter, path string, rows [][]string) error {
	o, err := createOut(rep, "out", path)
	if err != nil {
		return err
	}
	return o.commit(func(w io.Writer) error { return csv.NewWriter(w).WriteAll(rows) })
}
