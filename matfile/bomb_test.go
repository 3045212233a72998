package matfile

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"io"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// zlibZeros returns a zlib stream of prefix followed by zeros, mebi MiB of
// them, built without compressing them all: a block that encodes 1 MiB of
// zeros by copies from the preceding zeros is compressed once and
// repeated (each block ends on a byte boundary after a sync flush), and
// the Adler-32 checksum is computed in closed form (zeros leave its sum a
// unchanged and add a to b per byte).
func zlibZeros(t testing.TB, prefix []byte, mebi int) []byte {
	t.Helper()
	const mib = 1 << 20
	var z bytes.Buffer
	zw, err := zlib.NewWriterLevel(&z, zlib.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	zeros := make([]byte, mib)
	zw.Write(prefix)
	zw.Write(zeros)
	zw.Flush()
	first := z.Len()
	zw.Write(zeros)
	zw.Flush()
	block := slices.Clone(z.Bytes()[first:])
	zw.Close()
	tail := z.Bytes()[first+len(block) : z.Len()-4] // the final empty block
	out := slices.Clone(z.Bytes()[:first])
	for range mebi - 1 {
		out = append(out, block...)
	}
	out = append(out, tail...)
	const mod = 65521
	a, b := uint64(1), uint64(0)
	for _, c := range prefix {
		a = (a + uint64(c)) % mod
		b = (b + a) % mod
	}
	b = (b + uint64(mebi)*mib%mod*a) % mod
	return binary.BigEndian.AppendUint32(out, uint32(b<<16|a))
}

func TestZlibZeros(t *testing.T) {
	prefix := []byte("header")
	zr, err := zlib.NewReader(bytes.NewReader(zlibZeros(t, prefix, 5)))
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(zr) // verifies the checksum at the end
	if err != nil {
		t.Fatal(err)
	}
	if want := append(prefix, make([]byte, 5<<20)...); !bytes.Equal(got, want) {
		t.Fatalf("inflated %d bytes, want %d", len(got), len(want))
	}
}

// bomb returns a MAT-file of about 2 MB whose one compressed variable, a
// side×side double matrix of zeros, inflates to 8·side² bytes, and the
// dimensions its header declares, which may differ.
func bomb(t testing.TB, side, declared int) []byte {
	b := le
	head := slices.Concat(b.flags(mxDOUBLE, 0), b.dims(declared, declared), b.elem(miINT8, []byte("Y")))
	data := 8 * side * side
	head = b.order.AppendUint32(head, miDOUBLE)
	head = b.order.AppendUint32(head, uint32(data))
	tag := b.order.AppendUint32(nil, miMATRIX)
	tag = b.order.AppendUint32(tag, uint32(len(head)+data))
	z := zlibZeros(t, append(tag, head...), data>>20)
	out := b.order.AppendUint32(b.header(), miCOMPRESSED)
	out = b.order.AppendUint32(out, uint32(len(z)))
	return append(out, z...)
}

// allocated returns the bytes fn allocates.
func allocated(fn func()) uint64 {
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	fn()
	runtime.ReadMemStats(&m1)
	return m1.TotalAlloc - m0.TotalAlloc
}

// TestReadZlibBomb checks that a 2 MB file claiming 2 GiB of zeros is
// refused before it is inflated: by the limit when its dimensions agree
// with its size, by its dimensions when they do not. Either way the reader
// allocates a few kilobytes beyond the input, not gigabytes.
func TestReadZlibBomb(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 2 MB file")
	}
	const side = 1 << 14 // 16384² doubles: 2 GiB
	for _, c := range []struct {
		name     string
		declared int
		opts     *Options
		want     string
	}{
		{"limit", side, nil, `compressed variable "Y" inflates to 2147483704 bytes, above the reader's limit (1073741824 bytes left of Options.MaxInflated)`},
		{"small limit", side, &Options{MaxInflated: 1 << 20}, "above the reader's limit (1048576 bytes left"},
		{"dimensions", 100, &Options{MaxInflated: 1 << 40}, `compressed variable "Y" declares 2147483704 bytes, more than the 80056 its dimensions need`},
	} {
		in := bomb(t, side, c.declared)
		if len(in) < 1<<20 || len(in) > 3<<20 {
			t.Fatalf("bomb of %d bytes, want about 2 MB", len(in))
		}
		var err error
		n := allocated(func() { _, err = parseMAT(in, c.opts) })
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
		if n > 1<<20 {
			t.Errorf("%s: allocated %d bytes for a %d-byte file", c.name, n, len(in))
		}
		t.Logf("%s: %d-byte file, %d bytes allocated: %v", c.name, len(in), n, err)
	}
}

// TestReadLimit checks that compressed variables within the limit are read
// and that the limit applies to the file as a whole.
func TestReadLimit(t *testing.T) {
	b := le
	v := b.compress(b.doubleVar("Y", 2, 2, []float64{1, 2, 3, 4}))
	w := b.compress(b.doubleVar("Z", 2, 2, []float64{5, 6, 7, 8}))
	in := slices.Concat(b.header(), v, w)
	if _, err := Read(bytes.NewReader(in), &Options{MaxInflated: 176}); err != nil {
		t.Fatal(err)
	}
	_, err := Read(bytes.NewReader(in), &Options{MaxInflated: 150})
	if err == nil || !strings.Contains(err.Error(), `compressed variable "Z" inflates to 88 bytes, above the reader's limit (62 bytes left`) {
		t.Errorf("error %v", err)
	}
}
