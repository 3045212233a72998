package modelfile

import (
	"bytes"
	"slices"
	"testing"
)

// seeds returns encoded models and truncated and corrupted versions.
func seeds(t testing.TB) [][]byte {
	var buf bytes.Buffer
	if err := encode(&buf, testState(), Info{}); err != nil {
		t.Fatal(err)
	}
	good := slices.Clone(buf.Bytes())
	seeds := [][]byte{good, good[:headerLen], good[:len(good)/2], good[:len(good)-1]}
	c := slices.Clone(good)
	c[40] ^= 1
	seeds = append(seeds, c)
	// The bodies alone, for the checksum-free part of the target.
	seeds = append(seeds, good[headerLen:len(good)-8])
	return seeds
}

// FuzzDecode checks that any input decodes to a state or an error, never
// a panic, and that decoded states re-encode to the same bytes. As random
// input rarely has a valid checksum, the body parser is also fed the
// input directly.
func FuzzDecode(f *testing.F) {
	for _, s := range seeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if s, info, err := Decode(bytes.NewReader(in)); err == nil && info.Version == Version {
			var buf bytes.Buffer
			if err := encode(&buf, s, info); err != nil {
				t.Fatalf("re-encoding a decoded model: %v", err)
			}
			if !bytes.HasPrefix(in, buf.Bytes()) {
				t.Fatal("re-encoded model differs from its input")
			}
		}
		info := Info{Version: Version}
		s, err := decodeModelBody(in, &info)
		if err != nil {
			return
		}
		var buf bytes.Buffer
		if err := encode(&buf, s, info); err != nil {
			t.Fatalf("re-encoding a decoded body: %v", err)
		}
		if body := buf.Bytes()[headerLen : buf.Len()-8]; !bytes.Equal(body, in) {
			t.Fatal("re-encoded body differs from its input")
		}
	})
}
