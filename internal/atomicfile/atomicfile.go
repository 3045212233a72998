// Package atomicfile writes output files so that a crash, an error or a
// signal never leaves a partial file behind, and so that writing never
// replaces what the path names with something else.
//
// The rules:
//   - a regular file (or a path that does not exist) is written to a
//     temporary file beside it, synced and renamed over it; an existing
//     file keeps its mode and, where the system allows, its owner;
//   - a symbolic link is followed: its target is written that way and the
//     link stays a link;
//   - a character device or a FIFO is written in place (as a shell's
//     redirection does), so that /dev/null stays a device and /dev/full
//     reports that it is full;
//   - a directory or any other kind of file is refused.
//
// Temporary files are named .NAME.tmpPID beside NAME. Those of a process
// that no longer runs are stale and are removed by the next Create of the
// same path; RemoveTemps removes those of the running process, for a
// signal handler.
package atomicfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// File is an output file being written. Its content is given to Commit;
// Abort, which may be deferred, discards it.
type File struct {
	// Path is the file that Commit writes: the path given to Create or
	// the final target of the symbolic link it names.
	Path string
	// Stale lists the temporary files of killed runs that Create removed.
	Stale []string

	tmp   *os.File // temporary file renamed over Path by Commit
	place *os.File // device or FIFO written in place
}

// live holds the names of the temporary files not yet committed or aborted.
var live sync.Map

// Create prepares path for writing. It opens the temporary file (or the
// device) at once, so that an unwritable path is reported before any long
// work, and removes stale temporary files of path.
func Create(path string) (*File, error) {
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		switch t := st.Mode().Type(); {
		case t&fs.ModeDir != 0:
			return nil, errors.New("is a directory")
		case t&fs.ModeCharDevice != 0 || t&fs.ModeNamedPipe != 0:
			// Without O_NONBLOCK, opening a FIFO waits for a reader.
			f, err := openInPlace(path)
			if err != nil {
				return nil, err
			}
			return &File{Path: path, place: f}, nil
		default:
			return nil, fmt.Errorf("is not a regular file (%v): refusing to replace it", t)
		}
	}
	target, err := resolve(path)
	if err != nil {
		return nil, err
	}
	f := &File{Path: target}
	dir, base := filepath.Dir(target), filepath.Base(target)
	f.Stale = removeStale(dir, base)
	prefix := filepath.Join(dir, "."+base+".tmp"+strconv.Itoa(os.Getpid()))
	for i := 1; f.tmp == nil; i++ {
		name := prefix
		if i > 1 {
			name += "-" + strconv.Itoa(i)
		}
		// The mode is the usual one under the umask; Commit gives an
		// existing file's mode back.
		f.tmp, err = os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
		switch {
		case err == nil:
			live.Store(name, true)
		case errors.Is(err, fs.ErrExist) && i < 1000:
		case errors.Is(err, fs.ErrNotExist):
			return nil, fmt.Errorf("directory %s does not exist", dir)
		case errors.Is(err, fs.ErrPermission):
			return nil, fmt.Errorf("no permission to write in %s", dir)
		default:
			return nil, err
		}
	}
	return f, nil
}

// resolve follows path while it is a symbolic link and returns the final
// target, which need not exist.
func resolve(path string) (string, error) {
	for range 40 {
		st, err := os.Lstat(path)
		if err != nil || st.Mode()&fs.ModeSymlink == 0 {
			return path, nil
		}
		t, err := os.Readlink(path)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(t) {
			t = filepath.Join(filepath.Dir(path), t)
		}
		path = t
	}
	return "", errors.New("too many levels of symbolic links")
}

// removeStale removes the temporary files .base.tmpPID in dir whose
// process no longer runs and returns their names.
func removeStale(dir, base string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var removed []string
	prefix := "." + base + ".tmp"
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok || !e.Type().IsRegular() {
			continue
		}
		digits, _, _ := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(digits)
		if err != nil || pid == os.Getpid() || running(pid) {
			continue
		}
		name := filepath.Join(dir, e.Name())
		if os.Remove(name) == nil {
			removed = append(removed, name)
		}
	}
	return removed
}

// Commit writes the content made by encode and puts it in place. On
// error nothing is left behind and the file keeps its old content (a
// device or FIFO may have received part of it).
func (f *File) Commit(encode func(io.Writer) error) (err error) {
	out := f.tmp
	if out == nil {
		out = f.place
	}
	if out == nil {
		return errors.New("atomicfile: Commit after Commit or Abort")
	}
	defer f.Abort()
	bw := bufio.NewWriterSize(out, 1<<16)
	if err := encode(bw); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if f.place != nil {
		err := f.place.Close()
		f.place = nil
		return err
	}
	if err := f.tmp.Sync(); err != nil {
		return err
	}
	if st, err := os.Stat(f.Path); err == nil {
		if err := f.tmp.Chmod(st.Mode().Perm()); err != nil {
			return err
		}
		keepOwner(f.tmp, st)
	}
	if err := f.tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(f.tmp.Name(), f.Path); err != nil {
		return err
	}
	live.Delete(f.tmp.Name())
	f.tmp = nil
	// Make the rename durable; not all systems can sync a directory.
	if d, err := os.Open(filepath.Dir(f.Path)); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// Abort discards the file unless committed: the temporary file is
// removed, a device or FIFO closed. It may be called more than once.
func (f *File) Abort() {
	if f == nil {
		return
	}
	if f.tmp != nil {
		f.tmp.Close()
		os.Remove(f.tmp.Name())
		live.Delete(f.tmp.Name())
		f.tmp = nil
	}
	if f.place != nil {
		f.place.Close()
		f.place = nil
	}
}

// RemoveTemps removes every temporary file of the process not yet
// committed or aborted. It is meant for a handler of a signal that ends
// the process.
func RemoveTemps() {
	live.Range(func(name, _ any) bool {
		os.Remove(name.(string))
		live.Delete(name)
		return true
	})
}

// Write writes path with the content produced by encode (see Create and
// Commit).
func Write(path string, encode func(io.Writer) error) error {
	f, err := Create(path)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := f.Commit(encode); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
