package mcp

import (
	"bytes"
	"context"
	"errors"
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
	b, err := readCapped(bytes.NewReader(body), 64<<20, -1)
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

// An answer that says its size is read into one buffer of that size: the
// bytes allocated are the answer and its extra byte, not pieces and a
// join, which are twice it (runtime.MemStats counts bytes, not time; the
// margin of half the answer is for whatever else the process allocates).
func TestReadCappedSizedAnswerIsOneBuffer(t *testing.T) {
	const size = 9 << 20
	body := bytes.Repeat([]byte("y"), size)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	b, err := readCapped(bytes.NewReader(body), 64<<20, size)
	runtime.ReadMemStats(&after)
	if err != nil || !bytes.Equal(b, body) {
		t.Fatalf("readCapped: %d bytes, %v", len(b), err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > size+size/2 {
		t.Errorf("reading a %d-byte answer of known size allocated %d bytes", size, got)
	}
}

// The size an answer claims never changes what is read: a body shorter or
// longer than it, or over the limit, reads as it would unsized.
func TestReadCappedSizeIsOnlyAHint(t *testing.T) {
	body := bytes.Repeat([]byte("0123456789"), 30000) // 300 000 bytes
	for _, tc := range []struct {
		name  string
		size  int64
		limit int64
		err   error
	}{
		{"exact", int64(len(body)), 1 << 20, nil},
		{"claims more", int64(len(body)) * 2, 1 << 20, nil},
		{"claims less", int64(len(body)) / 3, 1 << 20, nil},
		{"claims more than the limit", 2 << 20, 1 << 20, nil},
		{"over the limit", int64(len(body)), 100000, errLimit},
		{"unknown", -1, 1 << 20, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := readCapped(bytes.NewReader(body), tc.limit, tc.size)
			if err != tc.err {
				t.Fatalf("err = %v, want %v", err, tc.err)
			}
			if tc.err == nil && !bytes.Equal(b, body) {
				t.Errorf("read %d bytes, want the %d sent", len(b), len(body))
			}
			if tc.err != nil && len(b) > excerptBytes {
				t.Errorf("a refused answer kept %d bytes", len(b))
			}
		})
	}
}

// The grant for a sized answer is claimed before its buffer is made: with
// the budget taken and the request's context ended, nothing is allocated
// for it and the context's error comes back.
func TestReadCappedSizedWaitsForItsGrant(t *testing.T) {
	old := answerBudget
	answerBudget = newBudget(1 << 20)
	defer func() { answerBudget = old }()
	held, _ := answerBudget.acquire(context.Background(), 1<<20)
	defer answerBudget.release(held)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	const size = 8 << 20
	r := &budgetReader{r: bytes.NewReader(make([]byte, size)), g: &grant{ctx: ctx, limit: 16 << 20}}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := readCapped(r, 16<<20, size)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got >= size {
		t.Errorf("%d bytes allocated before the grant", got)
	}
}
