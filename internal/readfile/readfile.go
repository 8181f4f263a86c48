// Package readfile is the one reader of user-named files (the config file,
// the golden file and its rubrics, payloads, waivers, prices, the judge
// prompt, baseline and report files): bounded, so that a wrong path (a log,
// a device, a huge dump) is refused instead of filling memory; regular
// files only, so that nothing blocks (a FIFO with no writer) or never ends
// (/dev/zero) while SIGINT and SIGTERM wait; read under a deadline, so that
// a "regular" file whose read blocks (/proc/kmsg) is given up; and worded
// without repeating the path the caller's message already names.
package readfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync/atomic"
	"time"
)

// Deadline bounds the reading of one file: a file that stat calls regular
// may still block (a kernel file such as /proc/kmsg, a file on a hung
// network mount), and no flag's file takes seconds to read. A variable for
// the tests.
var Deadline = 10 * time.Second

// interrupt, once set by CancelOn, ends a read in progress.
var interrupt atomic.Pointer[<-chan struct{}]

// CancelOn makes every read end, with an error, once done is closed: the
// command's context, so that SIGINT and SIGTERM are honoured while a file
// is read as everywhere else.
func CancelOn(done <-chan struct{}) { interrupt.Store(&done) }

// Read returns the bytes of the regular file at path, refusing, before a
// byte is read, anything else (a FIFO, a device, a directory, a socket)
// and a file larger than limit bytes. The buffer is the file's size, so
// memory stays proportional to the file; a file that grows while it is
// read is still cut at limit. A read that blocks is given up after
// Deadline, or when CancelOn's channel closes.
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
	// Non-blocking where the system allows: a path swapped for a FIFO
	// after the Stat does not block the open, and a file the kernel can
	// poll (/proc/kmsg) honours the read deadline and Close.
	f, err := openNonblock(path)
	if err != nil {
		return nil, err
	}
	// What was opened is what is read: checked again on the open file.
	if st, err = f.Stat(); err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("not a regular file (%s); give the path of a file", kind(st.Mode()))
	}
	return readWithin(f, st.Size(), limit)
}

// readWithin reads f (size bytes by its stat, at most limit) under Deadline
// and the interrupt, and closes it. A read that does not return in time is
// abandoned: f is closed, which ends it where the file is pollable; where
// it is not, the goroutine ends with the process.
func readWithin(f *os.File, size, limit int64) ([]byte, error) {
	_ = f.SetReadDeadline(time.Now().Add(Deadline)) // ErrNoDeadline for a disk file, which never blocks
	type result struct {
		b   []byte
		err error
	}
	done := make(chan result, 1)
	go func() {
		b, err := readAll(f, size, limit)
		done <- result{b, err}
	}()
	var stop <-chan struct{}
	if p := interrupt.Load(); p != nil {
		stop = *p
	}
	timer := time.NewTimer(Deadline)
	defer timer.Stop()
	select {
	case r := <-done:
		f.Close()
		if errors.Is(r.err, os.ErrDeadlineExceeded) {
			return nil, blocked()
		}
		return r.b, r.err
	case <-timer.C:
		f.Close()
		return nil, blocked()
	case <-stop:
		f.Close()
		return nil, errors.New("interrupted while reading it")
	}
}

func blocked() error {
	return fmt.Errorf("its read blocked for %v (a kernel or device file, or a hung mount?); give the path of a regular file", Deadline)
}

func readAll(f *os.File, size, limit int64) ([]byte, error) {
	buf := make([]byte, min(size, limit)+1)
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
