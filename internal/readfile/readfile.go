// Package readfile reads a user-named file with a size limit, so that a
// wrong path (a log, a device, a huge dump) is refused instead of filling
// memory, and words the failure without repeating the path the caller's
// message already names.
package readfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// Bounded returns the file's bytes, or an error if it is larger than limit
// bytes.
func Bounded(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("larger than %d KiB", limit>>10)
	}
	return b, nil
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
