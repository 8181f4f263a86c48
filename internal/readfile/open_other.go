//go:build !unix

package readfile

import "os"

// openNonblock: without O_NONBLOCK, a plain open; the deadline still gives
// up on a read that blocks.
func openNonblock(path string) (*os.File, error) { return os.Open(path) }
