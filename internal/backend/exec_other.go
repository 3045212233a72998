//go:build !unix

package backend

func exec(string, []string, []string) {}
