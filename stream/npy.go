package stream

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// npyArray is an open .npy array positioned at its next unread row.
type npyArray struct {
	name      string // for errors
	r         *bufio.Reader
	order     binary.ByteOrder
	kind      byte // 'f', 'i', 'u'
	size      int  // bytes per element
	rows      int  // first dimension
	cols      int  // product of the others (1 for a vector)
	read      int  // rows read so far
	dataStart int64
	buf       []byte
}

// readNPYHeader parses the header of a .npy stream (format versions 1 to
// 3) and returns the array positioned at its first row.
func readNPYHeader(name string, r io.Reader) (*npyArray, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	var pre [8]byte
	if _, err := io.ReadFull(br, pre[:]); err != nil {
		return nil, fmt.Errorf("stream: shard %s: not a .npy file (%v)", name, noEOF(err))
	}
	if string(pre[:6]) != "\x93NUMPY" {
		return nil, fmt.Errorf("stream: shard %s: not a .npy file (bad magic)", name)
	}
	var hlen int
	switch pre[6] {
	case 1:
		var b [2]byte
		if _, err := io.ReadFull(br, b[:]); err != nil {
			return nil, fmt.Errorf("stream: shard %s: truncated header", name)
		}
		hlen = int(binary.LittleEndian.Uint16(b[:]))
	case 2, 3:
		var b [4]byte
		if _, err := io.ReadFull(br, b[:]); err != nil {
			return nil, fmt.Errorf("stream: shard %s: truncated header", name)
		}
		hlen = int(binary.LittleEndian.Uint32(b[:]))
	default:
		return nil, fmt.Errorf("stream: shard %s: unsupported .npy version %d", name, pre[6])
	}
	if hlen > 1<<20 {
		return nil, fmt.Errorf("stream: shard %s: header of %d bytes", name, hlen)
	}
	h := make([]byte, hlen)
	if _, err := io.ReadFull(br, h); err != nil {
		return nil, fmt.Errorf("stream: shard %s: truncated header", name)
	}
	a := &npyArray{name: name, r: br}
	a.dataStart = int64(len(pre) + hlen + 2)
	if pre[6] != 1 {
		a.dataStart += 2
	}
	if err := a.parseHeader(string(h)); err != nil {
		return nil, fmt.Errorf("stream: shard %s: %v", name, err)
	}
	return a, nil
}

func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// headerValue returns the text after 'key': in a .npy header dictionary.
func headerValue(h, key string) (string, bool) {
	for _, q := range []string{"'", "\""} {
		if i := strings.Index(h, q+key+q); i >= 0 {
			rest := strings.TrimSpace(h[i+len(key)+2:])
			if strings.HasPrefix(rest, ":") {
				return strings.TrimSpace(rest[1:]), true
			}
		}
	}
	return "", false
}

func (a *npyArray) parseHeader(h string) error {
	descr, ok := headerValue(h, "descr")
	if !ok || len(descr) < 2 {
		return errors.New("header has no descr")
	}
	q := descr[0]
	end := strings.IndexByte(descr[1:], q)
	if end < 0 {
		return errors.New("bad descr in header")
	}
	dt := descr[1 : end+1]
	if len(dt) < 3 {
		return fmt.Errorf("unsupported dtype %q", dt)
	}
	switch dt[0] {
	case '<', '|', '=':
		a.order = binary.LittleEndian
	case '>':
		a.order = binary.BigEndian
	default:
		return fmt.Errorf("unsupported dtype %q", dt)
	}
	a.kind = dt[1]
	size, err := strconv.Atoi(dt[2:])
	if err != nil {
		return fmt.Errorf("unsupported dtype %q", dt)
	}
	a.size = size
	switch {
	case a.kind == 'f' && (size == 4 || size == 8):
	case (a.kind == 'i' || a.kind == 'u') && (size == 1 || size == 2 || size == 4 || size == 8):
	default:
		return fmt.Errorf("unsupported dtype %q (need float32/64 or integers)", dt)
	}
	fo, ok := headerValue(h, "fortran_order")
	if !ok {
		return errors.New("header has no fortran_order")
	}
	if strings.HasPrefix(fo, "True") {
		return errors.New("Fortran-ordered array: save it C-ordered (numpy.ascontiguousarray) to read it by rows")
	}
	sh, ok := headerValue(h, "shape")
	if !ok || !strings.HasPrefix(sh, "(") || strings.IndexByte(sh, ')') < 0 {
		return errors.New("header has no shape")
	}
	var dims []int
	for _, f := range strings.Split(sh[1:strings.IndexByte(sh, ')')], ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		n, err := strconv.Atoi(strings.TrimSuffix(f, "L"))
		if err != nil || n < 0 {
			return fmt.Errorf("bad shape %s", sh)
		}
		dims = append(dims, n)
	}
	switch len(dims) {
	case 0:
		return errors.New("array is a scalar")
	case 1:
		a.rows, a.cols = dims[0], 1
	default:
		a.rows, a.cols = dims[0], 1
		for _, n := range dims[1:] {
			a.cols *= n
		}
	}
	return nil
}

// value decodes the element at b.
func (a *npyArray) value(b []byte) float64 {
	switch a.kind {
	case 'f':
		if a.size == 4 {
			return float64(math.Float32frombits(a.order.Uint32(b)))
		}
		return math.Float64frombits(a.order.Uint64(b))
	case 'i':
		switch a.size {
		case 1:
			return float64(int8(b[0]))
		case 2:
			return float64(int16(a.order.Uint16(b)))
		case 4:
			return float64(int32(a.order.Uint32(b)))
		}
		return float64(int64(a.order.Uint64(b)))
	}
	switch a.size {
	case 1:
		return float64(b[0])
	case 2:
		return float64(a.order.Uint16(b))
	case 4:
		return float64(a.order.Uint32(b))
	}
	return float64(a.order.Uint64(b))
}

// readColumns reads the next n rows into the columns of dst (cols×n),
// samples as columns.
func (a *npyArray) readColumns(dst *mat.Dense, n int) error {
	if a.read+n > a.rows {
		return fmt.Errorf("stream: shard %s: read past its %d rows", a.name, a.rows)
	}
	row := a.cols * a.size
	if cap(a.buf) < row {
		a.buf = make([]byte, row)
	}
	buf := a.buf[:row]
	raw := dst.RawMatrix()
	for j := 0; j < n; j++ {
		if _, err := io.ReadFull(a.r, buf); err != nil {
			return fmt.Errorf("stream: shard %s is truncated: row %d of %d cannot be read (%v)", a.name, a.read+1, a.rows, noEOF(err))
		}
		for i := 0; i < a.cols; i++ {
			raw.Data[i*raw.Stride+j] = a.value(buf[i*a.size:])
		}
		a.read++
	}
	return nil
}

// readLabels reads the next n labels, which must be integers.
func (a *npyArray) readLabels(dst []int, n int) ([]int, error) {
	if a.cols != 1 {
		return nil, fmt.Errorf("stream: labels %s have %d values per sample, need 1", a.name, a.cols)
	}
	if a.read+n > a.rows {
		return nil, fmt.Errorf("stream: labels %s: read past its %d rows", a.name, a.rows)
	}
	var b [8]byte
	dst = dst[:0]
	for j := 0; j < n; j++ {
		if _, err := io.ReadFull(a.r, b[:a.size]); err != nil {
			return nil, fmt.Errorf("stream: labels %s are truncated: label %d of %d cannot be read (%v)", a.name, a.read+1, a.rows, noEOF(err))
		}
		v := a.value(b[:])
		if v != math.Trunc(v) || math.Abs(v) > 1<<53 {
			return nil, fmt.Errorf("stream: labels %s: label %d is %v, not an integer", a.name, a.read+1, v)
		}
		dst = append(dst, int(v))
		a.read++
	}
	return dst, nil
}

// checkSize returns an error if a regular file's size is less than its
// header promises.
func (a *npyArray) checkSize(f *os.File) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if want := a.dataStart + int64(a.rows)*int64(a.cols)*int64(a.size); fi.Size() < want {
		return fmt.Errorf("stream: shard %s is truncated: %d bytes, its header needs %d", a.name, fi.Size(), want)
	}
	return nil
}

// WriteNPY writes the columns of Y (d×n, one sample per column) to w as a
// C-ordered n×d .npy array of float32 (single) or float64 values.
func WriteNPY(w io.Writer, Y mat.Matrix, single bool) error {
	d, n := Y.Dims()
	descr := "<f8"
	size := 8
	if single {
		descr, size = "<f4", 4
	}
	if err := writeNPYHeader(w, descr, fmt.Sprintf("(%d, %d)", n, d)); err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	b := make([]byte, size)
	for j := 0; j < n; j++ {
		for i := 0; i < d; i++ {
			v := Y.At(i, j)
			if single {
				binary.LittleEndian.PutUint32(b, math.Float32bits(float32(v)))
			} else {
				binary.LittleEndian.PutUint64(b, math.Float64bits(v))
			}
			if _, err := bw.Write(b); err != nil {
				return err
			}
		}
	}
	return bw.Flush()
}

// WriteLabelsNPY writes labels to w as a .npy vector of int64.
func WriteLabelsNPY(w io.Writer, labels []int) error {
	if err := writeNPYHeader(w, "<i8", fmt.Sprintf("(%d,)", len(labels))); err != nil {
		return err
	}
	b := make([]byte, 8*len(labels))
	for i, l := range labels {
		binary.LittleEndian.PutUint64(b[8*i:], uint64(int64(l)))
	}
	_, err := w.Write(b)
	return err
}

func writeNPYHeader(w io.Writer, descr, shape string) error {
	h := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': %s, }", descr, shape)
	// Pad with spaces so that the data start on a multiple of 64 bytes.
	total := 10 + len(h) + 1
	h += strings.Repeat(" ", (64-total%64)%64) + "\n"
	hdr := append([]byte("\x93NUMPY\x01\x00"), byte(len(h)), byte(len(h)>>8))
	_, err := w.Write(append(hdr, h...))
	return err
}
