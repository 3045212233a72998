// Package provenance describes where a result file comes from: the
// machine's CPU and the git commit of the working tree.
package provenance

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// CPUModel returns the CPU's model name from /proc/cpuinfo, or "unknown CPU".
func CPUModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown CPU"
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "model name") {
			if _, v, ok := strings.Cut(l, ":"); ok {
				return strings.TrimSpace(v)
			}
		}
	}
	return "unknown CPU"
}

// Commit returns the abbreviated HEAD commit, marked "(working tree
// modified)" when tracked files differ from it outside the given outputs
// (files or directories the program itself writes), or "unknown".
func Commit(outputs ...string) string {
	out, err := exec.Command("git", "rev-parse", "--short=12", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	c := strings.TrimSpace(string(out))
	args := []string{"status", "--porcelain", "--untracked-files=no", "--", ":/"}
	if top, err := exec.Command("git", "rev-parse", "--show-toplevel").Output(); err == nil {
		for _, o := range outputs {
			abs, err := filepath.Abs(o)
			if err != nil {
				continue
			}
			if rel, err := filepath.Rel(strings.TrimSpace(string(top)), abs); err == nil && !strings.HasPrefix(rel, "..") {
				args = append(args, ":(top,exclude)"+filepath.ToSlash(rel))
			}
		}
	}
	if st, err := exec.Command("git", args...).Output(); err == nil && len(st) > 0 {
		c += " (working tree modified)"
	}
	return c
}
