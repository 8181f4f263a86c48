package main

// Slow modes: a server that never answers but never falls quite silent
// either, each the way a server (or a proxy in front of one) does it. They
// measure that mcp-eval bounds a request by one deadline for the whole
// answer, not one that restarts on each byte.
//
// Over HTTP: drip (a body that starts and then brings one space a second,
// for ever: valid JSON whitespace, never a value), sse-slow (a slowloris
// SSE stream: a keep-alive comment and a log notification a second, never
// the response), 1xx (a flood of 103 Early Hints interim responses, one
// every 50 ms, never a final one: RFC 9110 §15.2 lets a server send any
// number of them). Over stdio: drip (one byte of the answer line a
// second), notes (a log notification a second, never an answer).

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// slowHTTP serves the slow HTTP modes; it reports false for another mode.
func slowHTTP(mode string, w http.ResponseWriter, r *http.Request, id json.RawMessage) bool {
	flush := func() {
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	switch mode {
	case "drip":
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(" "))
		flush()
		for {
			select {
			case <-r.Context().Done():
				return true
			case <-tick.C:
				if _, err := w.Write([]byte(" ")); err != nil {
					return true
				}
				flush()
			}
		}
	case "sse-slow":
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		flush()
		for n := 0; ; n++ {
			select {
			case <-r.Context().Done():
				return true
			case <-tick.C:
				_, err := fmt.Fprintf(w, ": still working\n\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"tick %d\"}}\n\n", n)
				if err != nil {
					return true
				}
				flush()
			}
		}
	case "1xx":
		// net/http's ResponseWriter writes and flushes a 1xx status when
		// WriteHeader is called with one, as often as it is called (Flush
		// would send a 200).
		w.Header().Set("Link", "</style.css>; rel=preload; as=style")
		hints := time.NewTicker(50 * time.Millisecond)
		defer hints.Stop()
		for {
			select {
			case <-r.Context().Done():
				return true
			case <-hints.C:
				w.WriteHeader(http.StatusEarlyHints)
			}
		}
	}
	return false
}

// slowStdio serves the slow stdio modes for one request; it reports false
// for another mode. It blocks for ever (the process ends when stdin does
// not matter: the client kills it).
func slowStdio(mode string, out *bufio.Writer, id json.RawMessage) bool {
	switch mode {
	case "drip":
		msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"tools":[]}}`, id)
		for i := 0; ; i++ {
			// The answer's bytes, then spaces, one a second: the line never ends.
			b := byte(' ')
			if i < len(msg) {
				b = msg[i]
			}
			out.WriteByte(b)
			out.Flush()
			time.Sleep(time.Second)
		}
	case "notes":
		for n := 0; ; n++ {
			fmt.Fprintf(out, `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"tick %d"}}`+"\n", n)
			out.Flush()
			time.Sleep(time.Second)
		}
	}
	return false
}
