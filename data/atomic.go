package data

import (
	"io"

	"github.com/lrsdl/lrsdl/internal/atomicfile"
)

// writeAtomic writes path with the content of encode, never leaving a
// partial file (see atomicfile.Write).
func writeAtomic(path string, encode func(io.Writer) error) error {
	return atomicfile.Write(path, encode)
}
