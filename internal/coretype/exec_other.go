//go:build !unix

package coretype

func exec(string, []string, []string) {}
