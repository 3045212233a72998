//go:build unix

package backend

import "syscall"

func exec(exe string, args, env []string) { _ = syscall.Exec(exe, args, env) }
