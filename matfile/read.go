package matfile

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// MAT v5 data types (the type field of a data element tag).
const (
	miINT8       = 1
	miUINT8      = 2
	miINT16      = 3
	miUINT16     = 4
	miINT32      = 5
	miUINT32     = 6
	miSINGLE     = 7
	miDOUBLE     = 9
	miINT64      = 12
	miUINT64     = 13
	miMATRIX     = 14
	miCOMPRESSED = 15
	miUTF8       = 16
	miUTF16      = 17
	miUTF32      = 18
)

// MAT v5 array classes (the low byte of the array flags).
const (
	mxCELL     = 1
	mxSTRUCT   = 2
	mxOBJECT   = 3
	mxCHAR     = 4
	mxSPARSE   = 5
	mxDOUBLE   = 6
	mxSINGLE   = 7
	mxINT8     = 8
	mxUINT8    = 9
	mxINT16    = 10
	mxUINT16   = 11
	mxINT32    = 12
	mxUINT32   = 13
	mxINT64    = 14
	mxUINT64   = 15
	mxFUNCTION = 16
	mxOPAQUE   = 17
)

// Array flag bits (in the byte above the class byte).
const (
	flagComplex = 0x08
	flagLogical = 0x02
)

const (
	matHeaderLen = 128
	// maxElements bounds the element count computed from a dimensions
	// array, so that a corrupt header cannot overflow int arithmetic.
	maxElements = 1 << 40
)

var typeNames = map[uint32]string{
	miINT8: "miINT8", miUINT8: "miUINT8", miINT16: "miINT16", miUINT16: "miUINT16",
	miINT32: "miINT32", miUINT32: "miUINT32", miSINGLE: "miSINGLE", miDOUBLE: "miDOUBLE",
	miINT64: "miINT64", miUINT64: "miUINT64", miMATRIX: "miMATRIX", miCOMPRESSED: "miCOMPRESSED",
	miUTF8: "miUTF8", miUTF16: "miUTF16", miUTF32: "miUTF32",
}

func typeName(t uint32) string {
	if s, ok := typeNames[t]; ok {
		return s
	}
	return fmt.Sprintf("unknown type %d", t)
}

// numericSize returns the byte size of one value of a numeric data type,
// or 0 if t is not a numeric type.
func numericSize(t uint32) int {
	switch t {
	case miINT8, miUINT8:
		return 1
	case miINT16, miUINT16:
		return 2
	case miINT32, miUINT32, miSINGLE:
		return 4
	case miDOUBLE, miINT64, miUINT64:
		return 8
	}
	return 0
}

var classNames = map[uint8]string{
	mxCELL: "cell", mxSTRUCT: "struct", mxOBJECT: "object", mxCHAR: "char",
	mxSPARSE: "sparse", mxDOUBLE: "double", mxSINGLE: "single", mxINT8: "int8",
	mxUINT8: "uint8", mxINT16: "int16", mxUINT16: "uint16", mxINT32: "int32",
	mxUINT32: "uint32", mxINT64: "int64", mxUINT64: "uint64",
	mxFUNCTION: "function_handle", mxOPAQUE: "opaque",
}

func isNumericClass(c uint8) bool { return c >= mxDOUBLE && c <= mxUINT64 }

// matVar is one parsed top-level variable.
type matVar struct {
	info     VarInfo
	dataType uint32 // storage type of the real part
	data     []byte // raw real part, column-major
	order    binary.ByteOrder
	// unsupported is non-nil when the variable is valid but cannot be
	// converted to a real 2-D matrix; it says why.
	unsupported error
}

// File is a parsed MAT v5 file. Variables are converted to Go types on
// demand by Dense, CSC and Ints.
type File struct {
	// Text is the descriptive text of the header, without trailing spaces.
	Text   string
	vars   []*matVar
	byName map[string]*matVar
}

// DefaultMaxInflated is the default limit on the total decompressed size
// of the compressed variables of one file: 1 GiB.
const DefaultMaxInflated = 1 << 30

// Options control Open and Read. The zero value means the defaults.
type Options struct {
	// MaxInflated limits the total size in bytes of the decompressed
	// variables of a file (zlib can expand data about a thousandfold, so
	// a small file can claim gigabytes). Zero means DefaultMaxInflated.
	MaxInflated int64
}

// Open reads and parses the MAT v5 file at path. opts may be nil.
func Open(path string, opts *Options) (*File, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f, err := parseMAT(b, opts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// Read reads a MAT v5 file from r until EOF and parses it. opts may be nil.
//
// Supported are real numeric arrays (double, single, int8..int64,
// uint8..uint64) and logical arrays with two dimensions, stored plainly or
// zlib-compressed (miCOMPRESSED), in either byte order. Other variables
// (cell, struct, object, char, sparse, complex, more than two dimensions)
// are listed by Vars and reported by an error from Dense and Ints.
// Level 4 and v7.3 (HDF5) files are rejected with an error saying so.
//
// Memory use is bounded by the size of the input plus the decompressed
// size of its compressed variables. That size is checked before
// decompressing: it may not exceed what the variable's dimensions need
// (for numeric arrays) nor, over the whole file, opts.MaxInflated.
func Read(r io.Reader, opts *Options) (*File, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("matfile: reading: %w", err)
	}
	return parseMAT(b, opts)
}

func parseMAT(b []byte, opts *Options) (*File, error) {
	budget := int64(DefaultMaxInflated)
	if opts != nil && opts.MaxInflated > 0 {
		budget = opts.MaxInflated
	}
	if bytes.HasPrefix(b, []byte("MATLAB 7.3")) || (len(b) >= 520 && string(b[512:520]) == "\x89HDF\r\n\x1a\n") {
		return nil, errors.New("matfile: MATLAB v7.3 (HDF5) files are not supported; save with -v7 or -v6")
	}
	if len(b) < matHeaderLen {
		return nil, fmt.Errorf("matfile: file truncated in header: %d bytes, a MAT v5 header has %d", len(b), matHeaderLen)
	}
	var order binary.ByteOrder
	switch string(b[126:128]) {
	case "IM":
		order = binary.LittleEndian
	case "MI":
		order = binary.BigEndian
	default:
		if b[0] == 0 || b[1] == 0 || b[2] == 0 || b[3] == 0 {
			return nil, errors.New("matfile: not a MAT v5 file (looks like a Level 4 MAT-file, which is not supported)")
		}
		return nil, fmt.Errorf("matfile: not a MAT v5 file: bad endian indicator %q at byte 126", b[126:128])
	}
	switch v := order.Uint16(b[124:126]); v {
	case 0x0100:
	case 0x0200:
		return nil, errors.New("matfile: MATLAB v7.3 (HDF5) files are not supported; save with -v7 or -v6")
	default:
		return nil, fmt.Errorf("matfile: unsupported MAT-file version 0x%04x (want 0x0100)", v)
	}
	f := &File{
		Text:   strings.TrimRight(string(b[:116]), " \x00"),
		byName: make(map[string]*matVar),
	}
	p := b[matHeaderLen:]
	for len(p) > 0 {
		off := len(b) - len(p)
		typ, body, rest, err := nextElement(p, order, false)
		if err != nil {
			return nil, fmt.Errorf("matfile: element at byte %d: %w", off, err)
		}
		switch typ {
		case miCOMPRESSED:
			body, err = inflateElement(body, order, &budget)
			if err != nil {
				return nil, fmt.Errorf("matfile: compressed element at byte %d: %w", off, err)
			}
		case miMATRIX:
			// Uncompressed top-level elements are padded to 8 bytes.
			rest = skipPadding(p, len(p)-len(rest))
		default:
			return nil, fmt.Errorf("matfile: element at byte %d: unexpected top-level element of type %s", off, typeName(typ))
		}
		v, err := parseMatrix(body, order)
		if err != nil {
			return nil, fmt.Errorf("matfile: variable at byte %d: %w", off, err)
		}
		p = rest
		if v.info.Name == "" {
			// Subsystem data and other anonymous elements.
			continue
		}
		if _, dup := f.byName[v.info.Name]; dup {
			return nil, fmt.Errorf("matfile: variable at byte %d: duplicate variable name %q", off, v.info.Name)
		}
		f.vars = append(f.vars, v)
		f.byName[v.info.Name] = v
	}
	return f, nil
}

// skipPadding returns p after its first end bytes rounded up to a multiple
// of 8, or the empty tail if the padding is missing at the end of p.
func skipPadding(p []byte, end int) []byte {
	padded := (end + 7) &^ 7
	if padded > len(p) {
		padded = len(p)
	}
	return p[padded:]
}

// nextElement reads one data element from p. It returns the element's
// type, its data and the rest of p after the element (and, if pad is set,
// after its padding to a multiple of 8 bytes).
func nextElement(p []byte, order binary.ByteOrder, pad bool) (typ uint32, body, rest []byte, err error) {
	if len(p) < 8 {
		return 0, nil, nil, fmt.Errorf("truncated tag: %d bytes left, a tag has 8", len(p))
	}
	v := order.Uint32(p)
	if n := v >> 16; n != 0 {
		// Small data element: type and size share the first 4 bytes.
		if n > 4 {
			return 0, nil, nil, fmt.Errorf("small data element of %s claims %d bytes (at most 4)", typeName(v&0xffff), n)
		}
		return v & 0xffff, p[4 : 4+n], p[8:], nil
	}
	n := uint64(order.Uint32(p[4:]))
	if n > uint64(len(p)-8) {
		return 0, nil, nil, fmt.Errorf("truncated %s element: tag says %d bytes, %d left", typeName(v), n, len(p)-8)
	}
	end := 8 + int(n)
	body = p[8:end]
	if pad {
		return v, body, skipPadding(p, end), nil
	}
	return v, body, p[end:], nil
}

// inflateElement decompresses the zlib stream of a miCOMPRESSED element,
// which holds one miMATRIX element, and returns that element's data. The
// size the element's tag declares is checked against its dimensions and
// against *budget, the bytes the file may still inflate, before the data is
// decompressed; *budget is then reduced by it.
func inflateElement(z []byte, order binary.ByteOrder, budget *int64) ([]byte, error) {
	zr, err := zlib.NewReader(bytes.NewReader(z))
	if err != nil {
		return nil, fmt.Errorf("zlib: %w", err)
	}
	var tag [8]byte
	if _, err := io.ReadFull(zr, tag[:]); err != nil {
		return nil, fmt.Errorf("zlib: reading the tag of the compressed element: %w", err)
	}
	typ := order.Uint32(tag[:])
	if typ != miMATRIX {
		return nil, fmt.Errorf("compressed element holds %s, want miMATRIX", typeName(typ))
	}
	n := int64(order.Uint32(tag[4:]))
	// The array flags, dimensions and name come first; they bound the size
	// of a numeric array.
	head, err := io.ReadAll(io.LimitReader(zr, min(n, maxHeadLen)))
	if err != nil {
		return nil, fmt.Errorf("zlib: %w", err)
	}
	name, need, err := sizeBound(head, order)
	if err != nil {
		return nil, err
	}
	if need >= 0 && n > need {
		return nil, fmt.Errorf("compressed variable %q declares %d bytes, more than the %d its dimensions need", name, n, need)
	}
	if n > *budget {
		return nil, fmt.Errorf("compressed variable %q inflates to %d bytes, above the reader's limit (%d bytes left of Options.MaxInflated)", name, n, *budget)
	}
	*budget -= n
	// ReadAll grows with the data actually decompressed, so a stream
	// shorter than its tag allocates no more than it holds.
	body, err := io.ReadAll(io.MultiReader(bytes.NewReader(head), io.LimitReader(zr, n-int64(len(head)))))
	if err != nil {
		return nil, fmt.Errorf("zlib: %w", err)
	}
	if int64(len(body)) < n {
		return nil, fmt.Errorf("compressed miMATRIX truncated: tag says %d bytes, stream holds %d", n, len(body))
	}
	// Read to the end of the stream so that its checksum is verified;
	// allow a few bytes of padding after the element.
	var tail [16]byte
	m, err := io.ReadFull(zr, tail[:])
	switch {
	case err == io.ErrUnexpectedEOF || err == io.EOF:
		if m > 7 {
			return nil, fmt.Errorf("%d bytes of extra data after the compressed miMATRIX", m)
		}
	case err != nil:
		return nil, fmt.Errorf("zlib: %w", err)
	default:
		return nil, errors.New("extra data after the compressed miMATRIX")
	}
	return body, nil
}

// maxHeadLen is the most of a compressed miMATRIX that is decompressed
// before its size is checked: its flags, dimensions and name.
const maxHeadLen = 4096

// sizeBound reads the array flags, dimensions and name at the start of the
// data of a miMATRIX element, head, and returns the name and the largest
// size the element's data may have: the header read plus a real and, if
// complex, an imaginary part of 8-byte values, each with its tag and
// padding. need is −1 when the class does not bound the size (cell,
// struct, object, sparse, …), or when head ends before the name.
func sizeBound(head []byte, order binary.ByteOrder) (name string, need int64, err error) {
	typ, d, p, err := nextElement(head, order, true)
	if err != nil || typ != miUINT32 || len(d) != 8 {
		return "", -1, nil // parseMatrix reports it
	}
	flags := order.Uint32(d)
	typ, d, p, err = nextElement(p, order, true)
	if err != nil || typ != miINT32 || len(d)%4 != 0 || len(d) < 8 {
		return "", -1, nil
	}
	numel := int64(1)
	for i := 0; i < len(d); i += 4 {
		n := int64(int32(order.Uint32(d[i:])))
		if n < 0 {
			return "", -1, nil
		}
		if numel > 0 && n > maxElements/numel {
			return "", 0, fmt.Errorf("compressed variable: dimensions too large")
		}
		numel *= n
	}
	_, d, p, err = nextElement(p, order, true)
	if err != nil {
		return "", -1, nil
	}
	name = string(d)
	if !isNumericClass(uint8(flags)) {
		return name, -1, nil
	}
	part := 8 + (8*numel+7)&^7
	if flags>>8&flagComplex != 0 {
		part *= 2
	}
	return name, int64(len(head)-len(p)) + part, nil
}

// parseMatrix parses the data of a miMATRIX element.
func parseMatrix(p []byte, order binary.ByteOrder) (*matVar, error) {
	v := &matVar{order: order}
	// Array flags.
	typ, d, p, err := nextElement(p, order, true)
	if err != nil {
		return nil, fmt.Errorf("array flags: %w", err)
	}
	if typ != miUINT32 || len(d) != 8 {
		return nil, fmt.Errorf("array flags: want miUINT32 of 8 bytes, got %s of %d bytes", typeName(typ), len(d))
	}
	flags := order.Uint32(d)
	class := uint8(flags)
	cname, ok := classNames[class]
	if !ok {
		return nil, fmt.Errorf("array flags: unknown array class %d", class)
	}
	v.info.Class = cname
	v.info.Complex = flags>>8&flagComplex != 0
	if class == mxUINT8 && flags>>8&flagLogical != 0 {
		v.info.Class = "logical"
	}
	if class == mxOPAQUE {
		// Opaque objects store no dimensions; their name comes next.
		if typ, d, _, err := nextElement(p, order, true); err == nil && typ == miINT8 {
			v.info.Name = string(d)
		}
		v.unsupported = fmt.Errorf("variable %q is of class opaque; only numeric and logical 2-D arrays are supported", v.info.Name)
		return v, nil
	}
	// Dimensions.
	typ, d, p, err = nextElement(p, order, true)
	if err != nil {
		return nil, fmt.Errorf("dimensions: %w", err)
	}
	if typ != miINT32 || len(d)%4 != 0 || len(d) < 8 {
		return nil, fmt.Errorf("dimensions: want miINT32 with at least 2 values, got %s of %d bytes", typeName(typ), len(d))
	}
	v.info.Dims = make([]int, len(d)/4)
	numel := 1
	for i := range v.info.Dims {
		n := int32(order.Uint32(d[4*i:]))
		if n < 0 {
			return nil, fmt.Errorf("dimensions: negative dimension %d", n)
		}
		v.info.Dims[i] = int(n)
		if numel > 0 && int(n) > maxElements/numel {
			return nil, fmt.Errorf("dimensions: %s too large", dimString(v.info.Dims[:i+1]))
		}
		numel *= int(n)
	}
	v.info.Rows, v.info.Cols = v.info.Dims[0], v.info.Dims[1]
	// Name.
	typ, d, p, err = nextElement(p, order, true)
	if err != nil {
		return nil, fmt.Errorf("array name: %w", err)
	}
	if typ != miINT8 && typ != miUINT8 && typ != miUTF8 {
		return nil, fmt.Errorf("array name: want miINT8, got %s", typeName(typ))
	}
	v.info.Name = string(d)

	switch {
	case !isNumericClass(class):
		v.unsupported = fmt.Errorf("variable %q is a %s array; only numeric and logical 2-D arrays are supported", v.info.Name, cname)
		return v, nil
	case len(v.info.Dims) > 2:
		v.unsupported = fmt.Errorf("variable %q has %d dimensions (%s); only 2-D arrays are supported", v.info.Name, len(v.info.Dims), dimString(v.info.Dims))
	case v.info.Complex:
		v.unsupported = fmt.Errorf("variable %q is complex; only real arrays are supported", v.info.Name)
	}
	// Real part.
	if len(p) == 0 && numel == 0 {
		v.dataType = miDOUBLE
		v.info.Supported = v.unsupported == nil
		return v, nil
	}
	typ, d, p, err = nextElement(p, order, true)
	if err != nil {
		return nil, fmt.Errorf("variable %q: real part: %w", v.info.Name, err)
	}
	size := numericSize(typ)
	if size == 0 {
		return nil, fmt.Errorf("variable %q: real part: %s is not a numeric type", v.info.Name, typeName(typ))
	}
	if len(d)%size != 0 || len(d)/size != numel {
		return nil, fmt.Errorf("variable %q: real part: %d bytes of %s hold %g values, dimensions %s need %d",
			v.info.Name, len(d), typeName(typ), float64(len(d))/float64(size), dimString(v.info.Dims), numel)
	}
	v.dataType, v.data = typ, d
	if v.info.Complex {
		if _, _, _, err := nextElement(p, order, true); err != nil {
			return nil, fmt.Errorf("variable %q: imaginary part: %w", v.info.Name, err)
		}
	}
	v.info.Supported = v.unsupported == nil
	return v, nil
}
