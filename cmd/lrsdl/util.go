package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
)

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// existingDir returns an error naming the flag and path unless path is an
// existing directory.
func existingDir(flag, path string) error {
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s %s: no such directory (create it first)", flag, path)
	case err != nil:
		return fmt.Errorf("%s %s: %v", flag, path, err)
	case !st.IsDir():
		return fmt.Errorf("%s %s: not a directory", flag, path)
	}
	return nil
}
