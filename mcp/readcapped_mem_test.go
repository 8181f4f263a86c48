package mcp

import (
	"bytes"
	"runtime"
	"testing"
)

// A big answer that is kept is joined into one slice and its pieces are
// left to the collector, not kept in chunkPool: after one collection only
// the answer itself is live. (runtime.MemStats counts bytes, not time, so
// this holds on a loaded machine; the margin is half the answer.)
func TestReadCappedLetsABigAnswersPiecesGo(t *testing.T) {
	const size = 16 << 20
	body := bytes.Repeat([]byte("x"), size)
	runtime.GC()
	runtime.GC() // empties chunkPool (its victim cache too)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	b, err := readCapped(bytes.NewReader(body), 64<<20)
	if err != nil || len(b) != size {
		t.Fatalf("readCapped: %d bytes, %v", len(b), err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(b)
	runtime.KeepAlive(body) // live throughout, so only what readCapped left is counted
	grew := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("heap grew %d bytes", grew)
	if grew > size+size/2 {
		t.Errorf("after reading a %d-byte answer the heap holds %d bytes more: its pieces stayed in the pool", size, grew)
	}
}
