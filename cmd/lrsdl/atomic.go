package main

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// outFile is an output file written atomically: the content goes to a
// temporary file beside it, created when the command starts so that an
// unwritable path is reported before any long work, and renamed over the
// path only when complete. Nothing is left behind on failure.
type outFile struct {
	flag, path string
	tmp        *os.File
}

// createOut prepares path, given by the command's flag, for writing.
func createOut(flag, path string) (*outFile, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return nil, fmt.Errorf("-%s %s: is a directory", flag, path)
	}
	dir, base := filepath.Dir(path), filepath.Base(path)
	tmp, err := os.CreateTemp(dir, "."+base+".tmp*")
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("-%s %s: directory %s does not exist", flag, path, dir)
	case errors.Is(err, fs.ErrPermission):
		return nil, fmt.Errorf("-%s %s: no permission to write in %s", flag, path, dir)
	case err != nil:
		return nil, fmt.Errorf("-%s %s: %v", flag, path, err)
	}
	return &outFile{flag: flag, path: path, tmp: tmp}, nil
}

// commit writes the content made by write and renames the file into place.
func (o *outFile) commit(write func(io.Writer) error) error {
	bw := bufio.NewWriterSize(o.tmp, 1<<16)
	err := write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = o.tmp.Sync()
	}
	if cerr := o.tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		// CreateTemp makes the file private; give it the usual permissions.
		err = os.Chmod(o.tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(o.tmp.Name(), o.path)
	}
	if err != nil {
		os.Remove(o.tmp.Name())
		return fmt.Errorf("-%s %s: %v", o.flag, o.path, err)
	}
	o.tmp = nil
	return nil
}

// abort removes the temporary file unless committed; it may be deferred.
func (o *outFile) abort() {
	if o != nil && o.tmp != nil {
		o.tmp.Close()
		os.Remove(o.tmp.Name())
		o.tmp = nil
	}
}

// writeCSV writes rows to the file path atomically.
func writeCSV(path string, rows [][]string) error {
	o, err := createOut("out", path)
	if err != nil {
		return err
	}
	return o.commit(func(w io.Writer) error { return csv.NewWriter(w).WriteAll(rows) })
}
