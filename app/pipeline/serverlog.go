package pipeline

import (
	"fmt"
	"io"
	"sync"
)

// ServerLogCap is the most server.log holds: a server that floods stderr
// must not fill the disk. The first and the last halves are kept, since a
// crash is explained at the end and a bad start at the beginning.
const ServerLogCap = 10 << 20

// CappedLog writes the first max/2 bytes through to w and keeps the last
// max/2 in a ring, which Close writes after a line saying how much was
// left out.
type CappedLog struct {
	mu      sync.Mutex
	w       io.Writer
	head    int64 // bytes written through
	max     int64
	ring    []byte
	next    int // where the ring's next byte goes
	full    bool
	dropped int64 // bytes neither in the head nor in the ring
	closed  bool
}

// NewCappedLog keeps at most max bytes of what is written to w.
func NewCappedLog(w io.Writer, max int64) *CappedLog {
	return &CappedLog{w: w, max: max}
}

func (c *CappedLog) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(p)
	if c.closed {
		return n, nil
	}
	if room := c.max/2 - c.head; room > 0 {
		k := min(int64(len(p)), room)
		if _, err := c.w.Write(p[:k]); err != nil {
			return 0, err
		}
		c.head += k
		p = p[k:]
	}
	if len(p) == 0 {
		return n, nil
	}
	size := int(c.max - c.max/2)
	if c.ring == nil {
		c.ring = make([]byte, size)
	}
	if len(p) > size {
		c.dropped += int64(c.filled() + len(p) - size)
		copy(c.ring, p[len(p)-size:])
		c.next, c.full = 0, true
		return n, nil
	}
	if c.full {
		c.dropped += int64(len(p))
	} else if over := c.next + len(p) - size; over > 0 {
		c.dropped += int64(over)
	}
	for len(p) > 0 {
		k := copy(c.ring[c.next:], p)
		p = p[k:]
		c.next += k
		if c.next == size {
			c.next, c.full = 0, true
		}
	}
	return n, nil
}

func (c *CappedLog) filled() int {
	if c.full {
		return len(c.ring)
	}
	return c.next
}

// Close writes the kept tail, after a note if anything was left out.
func (c *CappedLog) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil
	}
	c.closed = true
	if c.ring == nil {
		return nil
	}
	if c.dropped > 0 {
		if _, err := fmt.Fprintf(c.w, "\n[mcp-eval: server.log truncated: %d bytes left out here; the first and last %d bytes are kept]\n", c.dropped, c.max/2); err != nil {
			return err
		}
	}
	if c.full {
		if _, err := c.w.Write(c.ring[c.next:]); err != nil {
			return err
		}
	}
	_, err := c.w.Write(c.ring[:c.next])
	return err
}
