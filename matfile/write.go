package matfile

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"

	"github.com/lrsdl/lrsdl/internal/atomicfile"
	"gonum.org/v1/gonum/mat"
)

// matHeaderText is the descriptive text written into MAT-file headers.
const matHeaderText = "MATLAB 5.0 MAT-file, written by github.com/lrsdl/lrsdl"

// Write writes the matrices ms to a MAT v5 file at path, in the order
// given by names (sorted names when names is nil), as uncompressed double
// arrays. The file is written atomically: either the complete file is in
// place when Write returns nil, or path is left as it was.
func Write(path string, names []string, ms map[string]*mat.Dense) error {
	return atomicfile.Write(path, func(w io.Writer) error { return Encode(w, names, ms) })
}

// Encode writes the matrices ms to w in MAT v5 format, in the order
// given by names (sorted names when names is nil), as uncompressed
// little-endian double arrays that MATLAB, Octave and SciPy can read.
//
// Names must be valid MATLAB variable names (a letter followed by letters,
// digits or underscores, at most 63 characters), every name must be a key
// of ms and every key of ms must be listed. Matrices must be non-empty and
// small enough for the format's 32-bit element sizes.
func Encode(w io.Writer, names []string, ms map[string]*mat.Dense) error {
	names, err := checkMATNames(names, ms)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	var hdr [matHeaderLen]byte
	for i := range 116 {
		hdr[i] = ' '
	}
	copy(hdr[:], matHeaderText)
	// Bytes 116..123: subsystem data offset, none.
	binary.LittleEndian.PutUint16(hdr[124:], 0x0100)
	hdr[126], hdr[127] = 'I', 'M'
	if _, err := bw.Write(hdr[:]); err != nil {
		return err
	}
	le := binary.LittleEndian
	var buf []byte
	for _, name := range names {
		m := ms[name]
		r, c := m.Dims()
		nameLen := 8 // small data element
		if len(name) > 4 {
			nameLen = 8 + (len(name)+7)&^7
		}
		size := 16 + 16 + nameLen + 8 + 8*r*c
		buf = buf[:0]
		buf = le.AppendUint32(buf, miMATRIX)
		buf = le.AppendUint32(buf, uint32(size))
		// Array flags: class double, no flags; nzmax unused.
		buf = le.AppendUint32(buf, miUINT32)
		buf = le.AppendUint32(buf, 8)
		buf = le.AppendUint32(buf, mxDOUBLE)
		buf = le.AppendUint32(buf, 0)
		// Dimensions.
		buf = le.AppendUint32(buf, miINT32)
		buf = le.AppendUint32(buf, 8)
		buf = le.AppendUint32(buf, uint32(r))
		buf = le.AppendUint32(buf, uint32(c))
		// Name.
		if len(name) <= 4 {
			buf = le.AppendUint32(buf, uint32(len(name))<<16|miINT8)
			buf = append(buf, name...)
			buf = append(buf, make([]byte, 4-len(name))...)
		} else {
			buf = le.AppendUint32(buf, miINT8)
			buf = le.AppendUint32(buf, uint32(len(name)))
			buf = append(buf, name...)
			buf = append(buf, make([]byte, (8-len(name)%8)%8)...)
		}
		// Real part, column-major.
		buf = le.AppendUint32(buf, miDOUBLE)
		buf = le.AppendUint32(buf, uint32(8*r*c))
		if _, err := bw.Write(buf); err != nil {
			return err
		}
		var b [8]byte
		for j := 0; j < c; j++ {
			for i := 0; i < r; i++ {
				le.PutUint64(b[:], math.Float64bits(m.At(i, j)))
				if _, err := bw.Write(b[:]); err != nil {
					return err
				}
			}
		}
	}
	return bw.Flush()
}

func checkMATNames(names []string, ms map[string]*mat.Dense) ([]string, error) {
	if names == nil {
		for name := range ms {
			names = append(names, name)
		}
		sort.Strings(names)
	}
	if len(names) == 0 {
		return nil, errors.New("matfile: no matrices to write")
	}
	seen := make(map[string]bool, len(names))
	for _, name := range names {
		if err := checkMATName(name); err != nil {
			return nil, err
		}
		if seen[name] {
			return nil, fmt.Errorf("matfile: name %q listed twice", name)
		}
		seen[name] = true
		m, ok := ms[name]
		if !ok || m == nil {
			return nil, fmt.Errorf("matfile: no matrix for name %q", name)
		}
		if m.IsEmpty() {
			return nil, fmt.Errorf("matfile: matrix %q is empty", name)
		}
		r, c := m.Dims()
		if r > math.MaxInt32 || c > math.MaxInt32 || 8*uint64(r)*uint64(c)+128 > math.MaxUint32 {
			return nil, fmt.Errorf("matfile: matrix %q (%d×%d) is too large for a MAT v5 file", name, r, c)
		}
	}
	for name := range ms {
		if !seen[name] {
			return nil, fmt.Errorf("matfile: matrix %q is not in the list of names", name)
		}
	}
	return names, nil
}

func checkMATName(name string) error {
	if name == "" {
		return errors.New("matfile: empty variable name")
	}
	if len(name) > 63 {
		return fmt.Errorf("matfile: variable name %q is longer than 63 characters", name)
	}
	for i, r := range name {
		letter := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
		if !letter && (i == 0 || r != '_' && (r < '0' || r > '9')) {
			return fmt.Errorf("matfile: %q is not a valid MATLAB variable name (a letter, then letters, digits or underscores)", name)
		}
	}
	return nil
}
