package stream

import (
	"archive/zip"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// Dir is a Source over shards on disk, read one at a time and at most Size
// samples per chunk, so that memory holds one chunk whatever the data
// set's size. A shard is either a pair of .npy files, samples X (n×d,
// float32 or float64, C order) and labels y (n integers), or a .npz file
// holding fea (n×d) and gnd (n). Every shard's header is read when the
// Dir is opened, so a shard of another dimension or with fewer labels than
// samples is reported before training starts.
type Dir struct {
	size   int
	shards []shard
	d      int
	total  int64

	next  int        // shard to open after cur
	cur   *openShard // being read, or nil
	y     mat.Dense  // chunk storage
	label []int      // chunk labels
}

type shard struct {
	name         string // file name of the samples, for errors
	x, y         string // paths of the .npy pair, or of the .npz in x
	npz          bool
	rows, labels int
}

type openShard struct {
	sh     *shard
	x, y   *npyArray
	closer []io.Closer
}

// DefaultChunk is the number of samples per chunk when a Size is 0.
const DefaultChunk = 4096

// OpenDir returns a Source over the shards of a directory: every
// X_<name>.npy with its y_<name>.npy, and every .npz file, in the order of
// their file names. size is the largest chunk (0 means DefaultChunk).
func OpenDir(dir string, size int) (*Dir, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("stream: %v", err)
	}
	var shards []shard
	ys := map[string]bool{}
	for _, e := range ents {
		n := e.Name()
		if !e.Type().IsRegular() {
			continue
		}
		switch {
		case strings.HasPrefix(n, "X_") && strings.HasSuffix(n, ".npy"):
			yn := "y_" + strings.TrimPrefix(n, "X_")
			if _, err := os.Stat(filepath.Join(dir, yn)); err != nil {
				return nil, fmt.Errorf("stream: shard %s has no labels file %s", n, yn)
			}
			ys[yn] = true
			shards = append(shards, shard{name: n, x: filepath.Join(dir, n), y: filepath.Join(dir, yn)})
		case strings.HasSuffix(n, ".npz"):
			shards = append(shards, shard{name: n, x: filepath.Join(dir, n), npz: true})
		}
	}
	for _, e := range ents {
		if n := e.Name(); strings.HasPrefix(n, "y_") && strings.HasSuffix(n, ".npy") && !ys[n] {
			return nil, fmt.Errorf("stream: labels file %s has no samples file X_%s", n, strings.TrimPrefix(n, "y_"))
		}
	}
	if len(shards) == 0 {
		return nil, fmt.Errorf("stream: directory %s holds no shards (X_*.npy with y_*.npy, or .npz)", dir)
	}
	sort.Slice(shards, func(i, j int) bool { return shards[i].name < shards[j].name })
	return newDir(shards, size)
}

// OpenNPY returns a Source over one large .npy file of samples (n×d) with
// its labels file (n integers), read size samples at a time (0 means
// DefaultChunk) without loading either whole.
func OpenNPY(x, y string, size int) (*Dir, error) {
	return newDir([]shard{{name: filepath.Base(x), x: x, y: y}}, size)
}

func newDir(shards []shard, size int) (*Dir, error) {
	if size <= 0 {
		size = DefaultChunk
	}
	s := &Dir{size: size, shards: shards}
	for i := range shards {
		sh := &shards[i]
		o, err := s.open(sh)
		if err != nil {
			return nil, err
		}
		sh.rows, sh.labels = o.x.rows, o.y.rows
		d := o.x.cols
		o.close()
		if sh.labels != sh.rows {
			return nil, fmt.Errorf("stream: shard %s has %d samples and %d labels", sh.name, sh.rows, sh.labels)
		}
		if s.d == 0 {
			s.d = d
		} else if d != s.d {
			return nil, fmt.Errorf("stream: shard %s has dimension %d, shard %s %d", sh.name, d, shards[0].name, s.d)
		}
		s.total += int64(sh.rows)
	}
	return s, nil
}

// open opens a shard's samples and labels at their first rows.
func (s *Dir) open(sh *shard) (*openShard, error) {
	o := &openShard{sh: sh}
	fail := func(err error) (*openShard, error) {
		o.close()
		return nil, err
	}
	if sh.npz {
		z, err := zip.OpenReader(sh.x)
		if err != nil {
			return nil, fmt.Errorf("stream: shard %s: %v", sh.name, err)
		}
		o.closer = append(o.closer, z)
		find := func(key string) (*npyArray, error) {
			for _, f := range z.File {
				if f.Name == key+".npy" || f.Name == key {
					r, err := f.Open()
					if err != nil {
						return nil, fmt.Errorf("stream: shard %s: %s: %v", sh.name, key, err)
					}
					o.closer = append(o.closer, r)
					return readNPYHeader(sh.name+":"+key, r)
				}
			}
			return nil, nil
		}
		var err2 error
		if o.x, err2 = find("fea"); err2 != nil {
			return fail(err2)
		}
		if o.x == nil {
			return fail(fmt.Errorf("stream: shard %s has no samples (fea)", sh.name))
		}
		if o.y, err2 = find("gnd"); err2 != nil {
			return fail(err2)
		}
		if o.y == nil {
			return fail(fmt.Errorf("stream: shard %s has no labels (gnd)", sh.name))
		}
		return o, nil
	}
	for _, p := range []struct {
		path, name string
		dst        **npyArray
	}{{sh.x, sh.name, &o.x}, {sh.y, filepath.Base(sh.y), &o.y}} {
		f, err := os.Open(p.path)
		if err != nil {
			return fail(fmt.Errorf("stream: shard %s: %v", sh.name, err))
		}
		o.closer = append(o.closer, f)
		a, err := readNPYHeader(p.name, f)
		if err != nil {
			return fail(err)
		}
		if err := a.checkSize(f); err != nil {
			return fail(err)
		}
		*p.dst = a
	}
	return o, nil
}

func (o *openShard) close() {
	for i := len(o.closer) - 1; i >= 0; i-- {
		o.closer[i].Close()
	}
	o.closer = nil
}

// Next returns up to Size samples of the current shard, moving to the next
// shard when it is exhausted, and io.EOF after the last.
func (s *Dir) Next(ctx context.Context) (Chunk, error) {
	if err := ctx.Err(); err != nil {
		return Chunk{}, err
	}
	for s.cur == nil || s.cur.x.read == s.cur.x.rows {
		if s.cur != nil {
			s.cur.close()
			s.cur = nil
		}
		if s.next == len(s.shards) {
			return Chunk{}, io.EOF
		}
		o, err := s.open(&s.shards[s.next])
		if err != nil {
			return Chunk{}, err
		}
		s.next++
		if o.x.cols != s.d || o.x.rows != o.sh.rows || o.y.rows != o.sh.rows {
			o.close()
			return Chunk{}, fmt.Errorf("stream: shard %s changed since it was opened: %d×%d with %d labels", o.sh.name, o.x.rows, o.x.cols, o.y.rows)
		}
		s.cur = o
	}
	o := s.cur
	lo := o.x.read
	b := min(s.size, o.x.rows-lo)
	if r, c := s.y.Dims(); r != s.d || c != b {
		s.y.Reset()
		s.y.ReuseAs(s.d, b)
	}
	if err := o.x.readColumns(&s.y, b); err != nil {
		return Chunk{}, err
	}
	var err error
	if s.label, err = o.y.readLabels(s.label, b); err != nil {
		return Chunk{}, err
	}
	return Chunk{Y: &s.y, Labels: s.label, Name: fmt.Sprintf("%s rows %d..%d", o.sh.name, lo+1, lo+b)}, nil
}

// Reset closes the shard being read and starts again from the first.
func (s *Dir) Reset() error {
	if s.cur != nil {
		s.cur.close()
		s.cur = nil
	}
	s.next = 0
	return nil
}

// Close releases the open shard.
func (s *Dir) Close() error { return s.Reset() }

// Len returns the number of samples of all shards.
func (s *Dir) Len() int64 { return s.total }

// Dim returns the samples' dimension.
func (s *Dir) Dim() int { return s.d }

// Shards returns the number of shards.
func (s *Dir) Shards() int { return len(s.shards) }
