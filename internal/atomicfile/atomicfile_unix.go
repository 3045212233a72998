//go:build unix

package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// openInPlace opens the device or FIFO path for writing; a FIFO with no
// reader is an error rather than a wait.
func openInPlace(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0)
	if errors.Is(err, syscall.ENXIO) {
		return nil, errors.New("is a FIFO with no reader")
	}
	return f, err
}

// running reports whether the process pid may still run.
func running(pid int) bool {
	if pid <= 0 || pid > 1<<22 {
		return false // not a process id: a temporary name of another scheme
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// keepOwner gives tmp the owner and group of st where permitted (an
// unprivileged process can keep the group it belongs to, root both).
func keepOwner(tmp *os.File, st fs.FileInfo) {
	s, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return
	}
	if t, err := tmp.Stat(); err == nil {
		if u, ok := t.Sys().(*syscall.Stat_t); ok && u.Uid == s.Uid && u.Gid == s.Gid {
			return
		}
	}
	if tmp.Chown(int(s.Uid), int(s.Gid)) != nil {
		tmp.Chown(-1, int(s.Gid))
	}
}
