package mcp

import (
	"bytes"
	"context"
	"errors"
	"io"
	"runtime"
	"sync"
)

// Every answer is read through a size limit, but with checks running
// concurrently a limit per answer alone does not bound memory: eight
// concurrent answers of 16 MiB each, each buffered while it grows, peaked at
// several hundred MB against a server that answers 200 MB to everything. So
// the bytes of answers being read are also charged to one budget shared by
// every transport of the process: an answer may grow to freeAnswerBytes on
// its own, and beyond that it must hold a grant of min(limit, budget) bytes,
// taken in one piece (so two readers can never each hold half and wait for
// the other) and waited for under the request's deadline.

// DefaultAnswerBudget is the default of SetAnswerBudget: one answer of the
// default size limit at a time beyond the free allowance. Reading an answer
// is fast next to the checks' own work, so this costs little time, and it
// holds peak memory near a few times the limit whatever the concurrency.
const DefaultAnswerBudget = DefaultMaxMessageBytes

// freeAnswerBytes is what an answer may hold without a grant: small answers,
// the vast majority, never wait for one another.
const freeAnswerBytes = 256 << 10

var answerBudget = newBudget(DefaultAnswerBudget)

// SetAnswerBudget sets the bytes that all answers being read at once may
// hold beyond their small free allowance (at least one answer's limit is
// always granted, so a budget below --max-message-bytes serialises large
// answers rather than refusing them). It is meant to be called once at start.
func SetAnswerBudget(n int64) {
	if n < freeAnswerBytes {
		n = freeAnswerBytes
	}
	answerBudget.setCap(n)
}

// AnswerBudget returns the budget SetAnswerBudget set (DefaultAnswerBudget
// until it is called).
func AnswerBudget() int64 {
	answerBudget.mu.Lock()
	defer answerBudget.mu.Unlock()
	return answerBudget.cap
}

// budget is a weighted semaphore whose waiters give up with their context.
type budget struct {
	mu      sync.Mutex
	cap     int64
	used    int64
	peak    int64         // the most ever granted at once (for tests)
	changed chan struct{} // closed and replaced on every release
}

func newBudget(n int64) *budget { return &budget{cap: n, changed: make(chan struct{})} }

func (b *budget) setCap(n int64) {
	b.mu.Lock()
	b.cap = n
	close(b.changed)
	b.changed = make(chan struct{})
	b.mu.Unlock()
}

// acquire takes n bytes (clamped to the budget's size), waiting until they
// are free or ctx ends. It returns the amount to release.
func (b *budget) acquire(ctx context.Context, n int64) (int64, error) {
	for {
		b.mu.Lock()
		if n > b.cap {
			n = b.cap
		}
		if b.used+n <= b.cap {
			b.used += n
			b.peak = max(b.peak, b.used)
			b.mu.Unlock()
			return n, nil
		}
		ch := b.changed
		b.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
}

func (b *budget) release(n int64) {
	if n == 0 {
		return
	}
	b.mu.Lock()
	b.used -= n
	close(b.changed)
	b.changed = make(chan struct{})
	b.mu.Unlock()
}

// usage returns the bytes granted now and the peak, resetting the peak
// (for tests).
func (b *budget) usage() (used, peak int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	used, peak = b.used, b.peak
	b.peak = b.used
	return used, peak
}

// grant is one answer's claim on the budget.
type grant struct {
	ctx   context.Context
	limit int64
	held  int64
}

// need makes sure the answer may hold size bytes: nothing below the free
// allowance, one grant of min(limit, budget) beyond it.
func (g *grant) need(size int64) error {
	if size <= freeAnswerBytes || g.held > 0 {
		return nil
	}
	n, err := answerBudget.acquire(g.ctx, g.limit)
	if err != nil {
		return err
	}
	g.held = n
	return nil
}

func (g *grant) done() {
	answerBudget.release(g.held)
	g.held = 0
}

// budgetReader charges every byte read through it to its grant.
type budgetReader struct {
	r io.Reader
	g *grant
	n int64
}

func (b *budgetReader) Read(p []byte) (int, error) {
	if err := b.g.need(b.n + int64(len(p))); err != nil {
		return 0, err
	}
	n, err := b.r.Read(p)
	b.n += int64(n)
	return n, err
}

// reserve claims the grant for an answer of n bytes before a buffer of
// that size is made for it.
func (b *budgetReader) reserve(n int64) error { return b.g.need(n) }

// readChunkBytes is the size of the pieces readCapped reads into.
const readChunkBytes = 64 << 10

// Chunks of JSON answers are reused, so that refused answers do not leave
// their pieces to the garbage collector.
var chunkPool = sync.Pool{New: func() any { b := make([]byte, readChunkBytes); return &b }}

func getChunk() []byte  { return (*chunkPool.Get().(*[]byte))[:readChunkBytes] }
func putChunk(b []byte) { chunkPool.Put(&b) }

// poolBytes is the largest kept answer whose pieces go back to chunkPool.
const poolBytes = 1 << 20

// bigGarbage is how large a refused buffer must be for refusedBig to
// collect it at once.
const bigGarbage = 4 << 20

// refusedBig is called when a refused answer leaves a buffer of n bytes
// behind. Against a server that answers everything with too much, the
// heap would otherwise grow by one limit-sized buffer per refusal until the
// next collection (GOGC lets it double); collecting now keeps it at what
// is live. A server that answers within its limit never gets here.
func refusedBig(n int) {
	if n >= bigGarbage {
		runtime.GC()
	}
}

// readCapped reads r to its end into one slice of at most limit bytes. An
// answer over the limit returns ErrTooLarge (via errLimit) with only its
// first excerptBytes kept, so a refused answer costs no memory afterwards.
// Reading into fixed pieces and joining once avoids the doubling copies of
// a growing buffer. An answer that says its size (a Content-Length of at
// most limit; size is -1 when none) is read straight into one buffer of
// that size and a byte, its grant claimed first when r charges a budget:
// the pieces and their join were two copies of a 9 MB page at once.
func readCapped(r io.Reader, limit, size int64) ([]byte, error) {
	var chunks [][]byte // what was read, in order
	var pooled [][]byte // the chunks that came from chunkPool
	var total int64
	defer func() {
		// A refused answer's pieces go back for the next; so do those of
		// an answer of at most poolBytes. A big answer that was kept is
		// joined into one slice, and its pieces are left to the collector
		// at once: in the pool they stayed live for two more collections
		// (9 MB beside the 9 MB page of 100 000 tools that they made).
		if total > limit || total <= poolBytes {
			for _, c := range pooled {
				putChunk(c)
			}
		}
	}()
	for {
		var buf []byte
		switch {
		case total == 0 && size > 4<<10 && size <= limit:
			if rs, ok := r.(interface{ reserve(int64) error }); ok {
				if err := rs.reserve(size + 1); err != nil {
					return nil, err
				}
			}
			// The extra byte makes the end show as a short read, so a
			// body of exactly size bytes is returned without a copy.
			buf = make([]byte, size+1)
		case total == 0:
			buf = make([]byte, 4<<10) // most answers are small
		default:
			buf = getChunk()
			pooled = append(pooled, buf)
		}
		n, err := io.ReadFull(r, buf)
		total += int64(n)
		if total > limit {
			return excerptOf(chunks, buf[:n]), errLimit
		}
		if n > 0 {
			chunks = append(chunks, buf[:n])
		}
		if err != nil {
			var out []byte
			if len(pooled) == 0 && len(chunks) == 1 {
				out = chunks[0]
			} else {
				out = bytes.Join(chunks, nil)
			}
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return out, nil
			}
			return out, err
		}
	}
}

// excerptBytes is how much of a refused answer is kept as evidence.
const excerptBytes = 4 << 10

func excerptOf(chunks [][]byte, last []byte) []byte {
	var out []byte
	for _, c := range append(chunks, last) {
		out = append(out, c[:min(len(c), excerptBytes-len(out))]...)
		if len(out) >= excerptBytes {
			break
		}
	}
	return out
}
