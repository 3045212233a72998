//go:build !unix

package blas

func exec(string, []string, []string) {}
