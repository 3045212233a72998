//go:build unix

package atomicfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

func write(s string) func(io.Writer) error {
	return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
}

// names lists the names in dir, hidden ones included.
func names(t *testing.T, dir string) string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range paths {
		paths[i] = filepath.Base(p)
	}
	return strings.Join(paths, " ")
}

func content(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestWriteKeepsModeAndOldContentOnError(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out")
	if err := os.WriteFile(p, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, 0o640); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := Write(p, func(w io.Writer) error { io.WriteString(w, "partial"); return boom })
	if !errors.Is(err, boom) {
		t.Fatalf("Write: %v, want boom", err)
	}
	if got := content(t, p); got != "old" {
		t.Errorf("after a failed write the file holds %q", got)
	}
	if got := names(t, dir); got != "out" {
		t.Errorf("left behind: %s", got)
	}
	if err := Write(p, write("new")); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(p)
	if got := content(t, p); got != "new" || st.Mode().Perm() != 0o640 {
		t.Errorf("got %q mode %v, want \"new\" mode 0640", got, st.Mode().Perm())
	}
}

func TestWriteFollowsSymlink(t *testing.T) {
	dir := t.TempDir()
	target, link := filepath.Join(dir, "target"), filepath.Join(dir, "link")
	if err := os.Symlink("target", link); err != nil {
		t.Fatal(err)
	}
	// A dangling link: the target is created.
	if err := Write(link, write("one")); err != nil {
		t.Fatal(err)
	}
	if err := Write(link, write("two")); err != nil {
		t.Fatal(err)
	}
	st, err := os.Lstat(link)
	if err != nil || st.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("%s is no longer a symlink: %v %v", link, st.Mode(), err)
	}
	if got := content(t, target); got != "two" {
		t.Errorf("target holds %q, want \"two\"", got)
	}
}

func TestWriteDevice(t *testing.T) {
	for _, dev := range []string{"/dev/null", "/dev/full"} {
		if _, err := os.Stat(dev); err != nil {
			t.Skip(err)
		}
	}
	if err := Write("/dev/null", write("x")); err != nil {
		t.Errorf("/dev/null: %v", err)
	}
	if st, err := os.Stat("/dev/null"); err != nil || st.Mode()&fs.ModeCharDevice == 0 {
		t.Errorf("/dev/null is no longer a device: %v %v", st.Mode(), err)
	}
	if err := Write("/dev/full", write("x")); !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("/dev/full: %v, want no space left on device", err)
	}
}

func TestCreateRefuses(t *testing.T) {
	dir := t.TempDir()
	if _, err := Create(dir); err == nil || !strings.Contains(err.Error(), "directory") {
		t.Errorf("Create(dir): %v", err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Create(fifo); err == nil || !strings.Contains(err.Error(), "no reader") {
		t.Errorf("Create(fifo): %v", err)
	}
	if _, err := Create(filepath.Join(dir, "none", "out")); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("Create in a missing directory: %v", err)
	}
}

// deadPID returns the process id of a process that has ended.
func deadPID(t *testing.T) int {
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip(err)
	}
	return cmd.Process.Pid
}

func TestStaleTemps(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out")
	stale := filepath.Join(dir, ".out.tmp"+strconv.Itoa(deadPID(t)))
	alive := filepath.Join(dir, ".out.tmp"+strconv.Itoa(os.Getppid()))
	other := filepath.Join(dir, ".other.tmp"+strconv.Itoa(deadPID(t)))
	for _, n := range []string{stale, alive, other} {
		if err := os.WriteFile(n, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f, err := Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Abort()
	if len(f.Stale) != 1 || f.Stale[0] != stale {
		t.Errorf("Stale = %q, want [%s]", f.Stale, stale)
	}
	for _, n := range []string{alive, other} {
		if _, err := os.Stat(n); err != nil {
			t.Errorf("%s, not stale, was removed", n)
		}
	}
}

func TestRemoveTemps(t *testing.T) {
	dir := t.TempDir()
	f, err := Create(filepath.Join(dir, "out"))
	if err != nil {
		t.Fatal(err)
	}
	if got := names(t, dir); !strings.HasPrefix(got, ".out.tmp") {
		t.Fatalf("no temporary file: %q", got)
	}
	RemoveTemps()
	if got := names(t, dir); got != "" {
		t.Errorf("RemoveTemps left %s", got)
	}
	if err := f.Commit(write("x")); err == nil {
		t.Errorf("Commit after RemoveTemps succeeded")
	}
	if got := names(t, dir); got != "" {
		t.Errorf("left %s", got)
	}
}

// Run as root, Write keeps an existing file's owner and group.
func TestWriteKeepsOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to give a file away")
	}
	p := filepath.Join(t.TempDir(), "out")
	if err := os.WriteFile(p, []byte("old"), 0o640); err != nil {
		t.Fatal(err)
	}
	const nobody = 65534
	if err := os.Chown(p, nobody, nobody); err != nil {
		t.Skip(err)
	}
	if err := Write(p, write("new")); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if s := st.Sys().(*syscall.Stat_t); s.Uid != nobody || s.Gid != nobody || st.Mode().Perm() != 0o640 {
		t.Errorf("owner %d:%d mode %v, want %d:%d 0640", s.Uid, s.Gid, st.Mode().Perm(), nobody, nobody)
	}
}
