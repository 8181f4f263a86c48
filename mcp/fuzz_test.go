package mcp

import (
	"bufio"
	"bytes"
	"context"
	"testing"
)

// FuzzReadSSE feeds arbitrary bytes to the SSE reader as a server's answer:
// it must never panic, and must stay within its size limit.
func FuzzReadSSE(f *testing.F) {
	f.Add([]byte("event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n"))
	f.Add([]byte(": ping\r\rdata: {\r\ndata: }\n\n"))
	f.Add([]byte("data: {\"jsonrpc\":\"2.0\",\"id\":\"1\",\"error\":{\"code\":-1}}\n\ndata: x"))
	f.Fuzz(func(t *testing.T, body []byte) {
		h := &HTTP{MaxBytes: 1 << 12}
		x := &Exchange{}
		_ = h.readSSE(context.Background(), bytes.NewReader(body), &Outgoing{ID: []byte("1")}, x, func() {})
		if len(x.Body) > 1<<21 {
			t.Fatalf("kept %d bytes", len(x.Body))
		}
	})
}

// FuzzStdioLines feeds arbitrary bytes to the stdio line reader and the
// message dispatcher.
func FuzzStdioLines(f *testing.F) {
	f.Add([]byte("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\nnot json\n{\"method\":\"x\"}\r\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		s := &Stdio{pending: map[string]chan *Message{"1": make(chan *Message, 1)}, answered: map[string]bool{}, gaveUp: map[string]bool{}}
		br := bufio.NewReaderSize(bytes.NewReader(b), 64)
		for i := 0; i < 1000; i++ {
			line, err := readStdioLine(br, 1<<10, &grant{ctx: context.Background(), limit: 1 << 10})
			if len(bytes.TrimSpace(line)) > 0 {
				s.deliver(line)
			}
			if err != nil {
				return
			}
		}
	})
}
