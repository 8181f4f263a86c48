//go:build unix

package readfile

import (
	"os"
	"syscall"
)

// openNonblock opens path for reading with O_NONBLOCK: the open of a FIFO
// does not wait for a writer, and a pollable file's reads go through Go's
// poller, where the read deadline and Close apply (open(2)).
func openNonblock(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
