// Package readfile is the one reader of user-named files (the config file,
// the golden file and its rubrics, payloads, waivers, prices, the judge
// prompt, baseline and report files): bounded, so that a wrong path (a log,
// a device, a huge dump) is refused instead of filling memory; regular
// files only, so that nothing blocks (a FIFO with no writer) or never ends
// (/dev/zero) while SIGINT and SIGTERM wait; and worded without repeating
// the path the caller's message already names.
package readfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// Read returns the bytes of the regular file at path, refusing, before a
// byte is read, anything else (a FIFO, a device, a directory, a socket)
// and a file larger than limit bytes. The buffer is the file's size, so
// memory stays proportional to the file; a file that grows while it is
// read is still cut at limit.
func Read(path string, limit int64) ([]byte, error) {
	// Stat, not Open first: opening a FIFO with no writer blocks.
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file (%s); give the path of a file", kind(st.Mode()))
	}
	if st.Size() > limit {
		return nil, tooLarge(st.Size(), limit)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := make([]byte, min(st.Size(), limit)+1)
	n, err := io.ReadFull(f, buf)
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return buf[:n], nil
	case err != nil:
		return nil, err
	}
	// The file grew since it was measured: read on, still within limit.
	rest, err := io.ReadAll(io.LimitReader(f, limit+1-int64(n)))
	if err != nil {
		return nil, err
	}
	if buf = append(buf, rest...); int64(len(buf)) > limit {
		return nil, tooLarge(int64(len(buf)), limit)
	}
	return buf, nil
}

func tooLarge(size, limit int64) error {
	return fmt.Errorf("larger than %s (%s): not the file meant, or split it", Size(limit), Size(size))
}

// Size writes n bytes for a message: 8 MiB, 512 KiB, 100 bytes.
func Size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// kind names what a non-regular file is.
func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeCharDevice != 0, m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "not a plain file"
}

// Reason drops the path from an *fs.PathError, which the message already
// names as the user wrote it.
func Reason(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
