package methods

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/internal/atomicfile"
	"github.com/lrsdl/lrsdl/internal/modelfile"
)

// Save writes the trained model m to w as a model file: its method, its
// resolved options (normalisation among them), classes, temperature and
// learned matrices, in a versioned binary format with a checksum. Saving
// an untrained model is an error wrapping ErrNotTrained.
func Save(w io.Writer, m lrsdl.Model) error {
	if m == nil {
		return errors.New("methods: Save of a nil model")
	}
	if m.Classes() == nil {
		return fmt.Errorf("%w: %s has nothing to save", ErrNotTrained, m.Name())
	}
	s, err := m.State()
	if err != nil {
		return err
	}
	return modelfile.Encode(w, s)
}

// Load reads one model written by Save (or by an earlier version) from r,
// and no byte after it, and returns it ready to predict: the method it
// names, made by New, restored by SetState. A malformed or corrupt file,
// an unknown method and options the method does not know are errors.
func Load(r io.Reader) (lrsdl.Model, error) {
	s, _, err := modelfile.Decode(r)
	if err != nil {
		return nil, err
	}
	m, err := New(s.Method)
	if err != nil {
		return nil, err
	}
	if err := m.SetState(s); err != nil {
		return nil, err
	}
	if err := modelfile.KnownOptions(s, m); err != nil {
		return nil, err
	}
	return m, nil
}

// SaveFile saves m (see Save) to the file path atomically: the content
// goes to a temporary file beside it, which is synced and renamed over
// path, so that path holds either the whole model or what it held before.
func SaveFile(path string, m lrsdl.Model) error {
	return atomicfile.Write(path, func(w io.Writer) error { return Save(w, m) })
}

// LoadFile loads the model of the file path (see Load), which must hold
// nothing after it. Errors name the file.
func LoadFile(path string) (lrsdl.Model, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	br := bufio.NewReader(f)
	m, err := Load(br)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if _, err := br.ReadByte(); err != io.EOF {
		return nil, fmt.Errorf("%s: model: extra data after the end of the model", path)
	}
	return m, nil
}
