package mcp

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// rawHandler answers every POST with body as contentType.
func rawHandler(contentType, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", contentType)
		io.WriteString(w, body)
	}
}

func exchange(t *testing.T, h http.Handler, maxBytes int64, timeout time.Duration) (*Exchange, error) {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	tr := &HTTP{URL: srv.URL, MaxBytes: maxBytes}
	t.Cleanup(func() { tr.Close() })
	ctx, cancel := WithTimeout(context.Background(), timeout)
	defer cancel()
	return tr.Exchange(ctx, &Outgoing{ID: []byte("1"), Method: "tools/list", Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)})
}

func TestHTTPAnswers(t *testing.T) {
	tests := []struct {
		name      string
		ct, body  string
		wantID    string // id of the response, "" for none
		wantMsgs  int
		wantErr   error
		wantBadOK bool // an Invalid entry is expected
	}{
		{name: "json", ct: "application/json", body: `{"jsonrpc":"2.0","id":1,"result":{}}`, wantID: "1", wantMsgs: 1},
		{name: "json with charset", ct: "application/json; charset=utf-8", body: `{"jsonrpc":"2.0","id":1,"result":{}}`, wantID: "1", wantMsgs: 1},
		{name: "sse", ct: "text/event-stream", body: "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n", wantID: "1", wantMsgs: 1},
		{name: "sse comments and notifications first", ct: "text/event-stream",
			body: ": keep-alive\n\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\n\n: ping\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n", wantID: "1", wantMsgs: 2},
		{name: "sse multi-line data and CRLF", ct: "text/event-stream",
			body: "data: {\"jsonrpc\":\"2.0\",\r\ndata: \"id\":1,\"result\":{}}\r\n\r\n", wantID: "1", wantMsgs: 1},
		{name: "sse bare CR", ct: "text/event-stream", body: "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\r\r", wantID: "1", wantMsgs: 1},
		{name: "sse final event without blank line", ct: "text/event-stream", body: "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}", wantID: "1", wantMsgs: 1},
		{name: "sse wrong id then right id", ct: "text/event-stream",
			body: "data: {\"jsonrpc\":\"2.0\",\"id\":9,\"result\":{}}\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n", wantID: "1", wantMsgs: 2},
		{name: "sse only wrong id", ct: "text/event-stream", body: "data: {\"jsonrpc\":\"2.0\",\"id\":9,\"result\":{}}\n\n", wantID: "9", wantMsgs: 1},
		{name: "sse ends without response", ct: "text/event-stream", body: ": nothing\n\n", wantErr: ErrClosed},
		{name: "sse garbage event", ct: "text/event-stream", body: "data: not json\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n", wantID: "1", wantMsgs: 1, wantBadOK: true},
		{name: "non-json body", ct: "text/plain", body: "Bad Request", wantBadOK: true},
		{name: "empty body", ct: "", body: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x, err := exchange(t, rawHandler(tt.ct, tt.body), 0, 5*time.Second)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			gotID := ""
			if x.Response != nil {
				gotID = string(x.Response.ID)
			}
			if gotID != tt.wantID {
				t.Errorf("response id %q, want %q", gotID, tt.wantID)
			}
			if len(x.Messages) != tt.wantMsgs {
				t.Errorf("%d messages, want %d", len(x.Messages), tt.wantMsgs)
			}
			if (len(x.Invalid) > 0) != tt.wantBadOK {
				t.Errorf("invalid frames %q", x.Invalid)
			}
		})
	}
}

func TestHTTPBoundsBadServers(t *testing.T) {
	t.Run("endless SSE stream is cut at the size limit", func(t *testing.T) {
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			chunk := "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"data\":\"" + strings.Repeat("x", 8000) + "\"}}\n\n"
			for r.Context().Err() == nil {
				if _, err := io.WriteString(w, chunk); err != nil {
					return
				}
			}
		})
		// ErrTooLarge, not a TimeoutError, says the size limit cut it;
		// no time bound, so that a loaded machine cannot fail it.
		_, err := exchange(t, h, 1<<20, 60*time.Second)
		if !errors.Is(err, ErrTooLarge) {
			t.Fatalf("err = %v, want ErrTooLarge", err)
		}
	})
	t.Run("huge JSON body", func(t *testing.T) {
		h := rawHandler("application/json", `{"jsonrpc":"2.0","id":1,"result":{"x":"`+strings.Repeat("a", 3<<20)+`"}}`)
		if _, err := exchange(t, h, 1<<20, 10*time.Second); !errors.Is(err, ErrTooLarge) {
			t.Fatalf("err = %v, want ErrTooLarge", err)
		}
	})
	t.Run("a single endless SSE line", func(t *testing.T) {
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "data: ")
			for r.Context().Err() == nil {
				if _, err := io.WriteString(w, strings.Repeat("y", 64<<10)); err != nil {
					return
				}
			}
		})
		if _, err := exchange(t, h, 1<<20, 10*time.Second); !errors.Is(err, ErrTooLarge) {
			t.Fatalf("err = %v, want ErrTooLarge", err)
		}
	})
	t.Run("hang becomes a timeout", func(t *testing.T) {
		release := make(chan struct{})
		defer close(release)
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-release:
			case <-r.Context().Done():
			}
		})
		start := time.Now()
		_, err := exchange(t, h, 0, 300*time.Millisecond)
		var te *TimeoutError
		if !errors.As(err, &te) {
			t.Fatalf("err = %v, want a TimeoutError", err)
		}
		if !strings.Contains(err.Error(), "300ms") {
			t.Errorf("timeout error %q does not say how long it waited", err)
		}
		if d := time.Since(start); d > 30*time.Second { // a hang guard, wide for a loaded machine
			t.Errorf("took %v", d)
		}
	})
	t.Run("refused connection is unreachable", func(t *testing.T) {
		srv := httptest.NewServer(http.NotFoundHandler())
		url := srv.URL
		srv.Close()
		tr := &HTTP{URL: url}
		_, err := tr.Exchange(context.Background(), &Outgoing{Body: []byte(`{}`)})
		if !errors.Is(err, ErrUnreachable) {
			t.Fatalf("err = %v, want ErrUnreachable", err)
		}
	})
}

func TestHTTPHeaders(t *testing.T) {
	var got http.Header
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Clone()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
	})
	srv := httptest.NewServer(h)
	defer srv.Close()
	tr := &HTTP{URL: srv.URL, Header: http.Header{"Authorization": {"Bearer s3cret"}}}
	_, err := tr.Exchange(context.Background(), &Outgoing{ID: []byte("1"), Body: []byte(`{}`),
		Header: http.Header{"Mcp-Method": {"tools/list"}}, Omit: []string{"Authorization"}})
	if err != nil {
		t.Fatal(err)
	}
	if got.Get("Accept") != "application/json, text/event-stream" {
		t.Errorf("Accept = %q; the client MUST list both media types", got.Get("Accept"))
	}
	if got.Get("Mcp-Method") != "tools/list" || got.Get("Authorization") != "" {
		t.Errorf("headers %v", got)
	}
}

// TestStartRequestHook: the traceparent the hook returns is the one sent in
// _meta, and the hook learns how the exchange ended.
func TestStartRequestHook(t *testing.T) {
	var sent string
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID     any `json:"id"`
			Method string
			Params struct {
				Meta map[string]any `json:"_meta"`
			} `json:"params"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		if req.Method == "tools/call" {
			sent, _ = req.Params.Meta["traceparent"].(string)
		}
		w.Header().Set("Content-Type", "application/json")
		id, _ := json.Marshal(req.ID)
		if req.Method == "tools/call" {
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32602,"message":"unknown tool"}}`, id)
			return
		}
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{},"ttlMs":0,"cacheScope":"public"}}`, id)
	})
	srv := httptest.NewServer(h)
	defer srv.Close()
	const tp = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	var ended []error
	c, err := Connect(context.Background(), &HTTPTarget{URL: srv.URL}, Options{
		StartRequest: func(_ context.Context, method, name string) (string, func(error)) {
			if method != "tools/call" {
				return "", nil
			}
			return tp, func(err error) { ended = append(ended, err) }
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.CallTool(context.Background(), "nope", nil, nil)
	if sent != tp {
		t.Errorf("traceparent sent %q, want the hook's %q", sent, tp)
	}
	var rpcErr *Error
	if len(ended) != 1 || !errors.As(ended[0], &rpcErr) || !errors.As(err, &rpcErr) {
		t.Errorf("end called with %v (call err %v); want the JSON-RPC error once", ended, err)
	}
}

// bigAnswer streams a valid JSON-RPC answer of n bytes.
func bigAnswer(n int) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		n := n
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"x":"`)
		chunk := strings.Repeat("z", 64<<10)
		for n > 0 && r.Context().Err() == nil {
			k := min(n, len(chunk))
			if _, err := io.WriteString(w, chunk[:k]); err != nil {
				return
			}
			n -= k
		}
		io.WriteString(w, `"}}`)
	}
}

// Concurrent oversized answers share one budget: however many are read at
// once, the bytes granted never exceed it, and the heap stays near it.
func TestAnswerBudgetUnderConcurrency(t *testing.T) {
	const limit = 8 << 20
	srv := httptest.NewServer(bigAnswer(200 << 20))
	defer srv.Close()
	tr := &HTTP{URL: srv.URL, MaxBytes: limit}
	defer tr.Close()
	answerBudget.usage() // reset the peak
	var peakHeap uint64
	stop := make(chan struct{})
	var sampler sync.WaitGroup
	sampler.Add(1)
	go func() {
		defer sampler.Done()
		var ms runtime.MemStats
		for {
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
				runtime.ReadMemStats(&ms)
				peakHeap = max(peakHeap, ms.HeapInuse)
			}
		}
	}()
	var wg sync.WaitGroup
	errs := make([]error, 16)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			x, err := tr.Exchange(ctx, &Outgoing{ID: []byte("1"), Method: "tools/list", Body: []byte(`{}`)})
			errs[i] = err
			if x != nil && len(x.Body) > excerptBytes {
				errs[i] = fmt.Errorf("a refused answer kept %d bytes", len(x.Body))
			}
		}()
	}
	wg.Wait()
	close(stop)
	sampler.Wait()
	for i, err := range errs {
		if !errors.Is(err, ErrTooLarge) {
			t.Errorf("exchange %d: %v, want ErrTooLarge", i, err)
		}
	}
	used, peak := answerBudget.usage()
	if used != 0 {
		t.Errorf("%d bytes still granted after every exchange ended", used)
	}
	if peak > DefaultAnswerBudget {
		t.Errorf("peak grant %d > budget %d", peak, DefaultAnswerBudget)
	}
	if peak < limit {
		t.Errorf("peak grant %d: the budget was never used", peak)
	}
	// 16 answers of 8 MiB each would be 128 MiB without the budget.
	if peakHeap > 96<<20 {
		t.Errorf("peak heap in use %d MiB; want the budget to bound it", peakHeap>>20)
	}
}

func TestHTTPHostileAnswers(t *testing.T) {
	t.Run("gzip bomb is capped after decompression", func(t *testing.T) {
		var bomb bytes.Buffer
		zw := gzip.NewWriter(&bomb)
		zw.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{"x":"`))
		zw.Write(bytes.Repeat([]byte("z"), 64<<20))
		zw.Close()
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Encoding", "gzip")
			w.Write(bomb.Bytes())
		})
		x, err := exchange(t, h, 1<<20, 10*time.Second)
		if !errors.Is(err, ErrTooLarge) {
			t.Fatalf("err = %v, want ErrTooLarge", err)
		}
		if len(x.Body) > excerptBytes || !bytes.HasPrefix(x.Body, []byte(`{"jsonrpc"`)) {
			t.Errorf("kept %d bytes %q; want a decompressed excerpt", len(x.Body), x.Body[:min(len(x.Body), 20)])
		}
	})
	// --timeout bounds the whole answer, not the wait between bytes.
	for _, tc := range []struct {
		name string
		h    http.HandlerFunc
	}{
		{"trickling body", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			for r.Context().Err() == nil {
				w.Write([]byte(" "))
				w.(http.Flusher).Flush()
				time.Sleep(50 * time.Millisecond)
			}
		}},
		{"headers without a body", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		}},
		{"endless SSE keep-alives", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			for r.Context().Err() == nil {
				io.WriteString(w, ": ping\n\n")
				w.(http.Flusher).Flush()
				time.Sleep(10 * time.Millisecond)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			_, err := exchange(t, tc.h, 0, 400*time.Millisecond)
			var te *TimeoutError
			if !errors.As(err, &te) {
				t.Fatalf("err = %v, want a TimeoutError", err)
			}
			if d := time.Since(start); d > 30*time.Second { // a hang guard, wide for a loaded machine
				t.Errorf("took %v for a 400ms deadline", d)
			}
		})
	}
	t.Run("endless small SSE events keep at most maxStreamMessages", func(t *testing.T) {
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			ev := strings.Repeat(`data: {"jsonrpc":"2.0","method":"notifications/message","params":{}}`+"\n\n", 100)
			for r.Context().Err() == nil {
				if _, err := io.WriteString(w, ev); err != nil {
					return
				}
			}
		})
		x, err := exchange(t, h, 1<<20, 10*time.Second)
		if !errors.Is(err, ErrTooLarge) {
			t.Fatalf("err = %v, want ErrTooLarge", err)
		}
		if len(x.Messages) != maxStreamMessages || x.Dropped == 0 {
			t.Errorf("kept %d messages, dropped %d", len(x.Messages), x.Dropped)
		}
	})
}

// --header values never cross to another origin: the client follows no
// redirect at all, so the other origin is never contacted.
func TestHTTPRedirectKeepsCredentials(t *testing.T) {
	var leaked []string
	var mu sync.Mutex
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		leaked = append(leaked, r.Header.Get("Authorization")+r.Header.Get("X-Api-Key"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
	}))
	defer other.Close()
	for _, code := range []int{301, 302, 307, 308} {
		t.Run(fmt.Sprint(code), func(t *testing.T) {
			h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, other.URL+"/mcp", code)
			})
			srv := httptest.NewServer(h)
			defer srv.Close()
			tr := &HTTP{URL: srv.URL, Header: http.Header{"Authorization": {"Bearer s3cret-token"}, "X-Api-Key": {"k3y-value"}}}
			x, err := tr.Exchange(context.Background(), &Outgoing{ID: []byte("1"), Method: "tools/list", Body: []byte(`{}`)})
			if err != nil {
				t.Fatal(err)
			}
			if x.Status != code {
				t.Errorf("status %d, want the redirect itself (%d) reported", x.Status, code)
			}
		})
	}
	mu.Lock()
	defer mu.Unlock()
	if len(leaked) > 0 {
		t.Fatalf("the other origin was contacted %d times (credentials %q)", len(leaked), leaked)
	}
}

// modernHandler answers server/discover and passes other requests to rest.
func modernHandler(rest http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		json.Unmarshal(body, &req)
		if req.Method == "server/discover" {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"ttlMs":0,"cacheScope":"public"}}`, req.ID)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		rest(w, r)
	}
}

// A server that hangs after server/discover costs unresponsiveAfter
// timeouts, even with requests in flight at once and on fresh connections.
func TestHTTPUnresponsive(t *testing.T) {
	var sent atomic.Int64
	srv := httptest.NewServer(modernHandler(func(w http.ResponseWriter, r *http.Request) { sent.Add(1); <-r.Context().Done() }))
	defer srv.Close()
	const timeout = 300 * time.Millisecond
	c, err := Connect(context.Background(), &HTTPTarget{URL: srv.URL}, Options{Timeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 10 {
				c.ListTools(context.Background())
			}
		}()
	}
	wg.Wait()
	fresh := c.WithTransport(c.Transport().(*HTTP).Fresh())
	if _, err := fresh.ListTools(context.Background()); !errors.Is(err, ErrUnresponsive) {
		t.Errorf("fresh connection: %v, want ErrUnresponsive", err)
	}
	// Counted, not timed (the suite must pass on a loaded machine): once
	// unresponsiveAfter requests timed out, nothing more is sent; only
	// those of the other three workers already in flight reach the server.
	if n := sent.Load(); n > unresponsiveAfter+3 {
		t.Errorf("the server got %d of 41 requests, want at most %d", n, unresponsiveAfter+3)
	}
}

func TestHTTPNotMCP(t *testing.T) {
	tests := []struct {
		name   string
		h      http.HandlerFunc
		want   any
		substr string
	}{
		{"404 HTML", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(404)
			io.WriteString(w, "<html><body>Not Found</body></html>")
		}, new(*NotMCPError), `HTTP 404, text/html, body "<html><body>Not Found`},
		{"other JSON service", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"status":"ok"}`)
		}, new(*NotMCPError), `HTTP 200, application/json, body "{\"status\":\"ok\"}"`},
		// A rate limit and a redirect are named as such, not as a missing
		// server (before: "no MCP server at the target" for both).
		{"429", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "30")
			w.WriteHeader(429)
		}, new(*NotMCPError), "the server is rate limiting mcp-eval (HTTP 429 Too Many Requests, RFC 6585 §4): neither server/discover nor initialize got a JSON-RPC answer; HTTP 429, no content type, empty body — not evidence of a missing MCP server: run again later, or raise the server's limit for this client (it asks to wait: Retry-After 30)"},
		{"307", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "https://mcp.example.com/v2/mcp", http.StatusTemporaryRedirect)
		}, new(*NotMCPError), "the server redirects (HTTP 307 Temporary Redirect, RFC 9110 §15.4)"},
		{"308", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "https://mcp.example.com/v2/mcp", http.StatusPermanentRedirect)
		}, new(*NotMCPError), "mcp-eval follows no redirect, so that --header values never reach another origin: give --server-url https://mcp.example.com/v2/mcp"},
		{"401", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="mcp"`)
			w.WriteHeader(401)
		}, new(*UnauthorizedError), "unauthorized: the server wants credentials (see --header, --oauth-client-id or --oauth-federation): HTTP 401"},
		{"403 with a JSON-RPC body", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(403)
			io.WriteString(w, `{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"forbidden"}}`)
		}, new(*UnauthorizedError), "HTTP 403"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(tt.h)
			defer srv.Close()
			for _, version := range []string{"", LegacyVersion} {
				_, err := Connect(context.Background(), &HTTPTarget{URL: srv.URL}, Options{Timeout: time.Second, Version: version})
				if !errors.As(err, tt.want) {
					t.Fatalf("version %q: err = %v, want %T", version, err, tt.want)
				}
				if !strings.Contains(err.Error(), tt.substr) {
					t.Errorf("version %q: err %q does not contain %q", version, err, tt.substr)
				}
			}
		})
	}
}

// Over HTTP, an answer with another id is recorded as an orphan.
func TestHTTPAnomalies(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":99,"result":{}}`)
	})
	srv := httptest.NewServer(h)
	defer srv.Close()
	tr := &HTTP{URL: srv.URL}
	if _, err := tr.Exchange(context.Background(), &Outgoing{ID: []byte("1"), Method: "tools/list", Body: []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
	as := tr.Anomalies()
	if len(as) != 1 || as[0].Kind != AnomalyOrphan || !strings.Contains(as[0].Detail, "carries id 99") {
		t.Errorf("anomalies %+v", as)
	}
}

// An error without an id (absent or null) answers the request it came back
// on — JSON-RPC 2.0 §5's id null, the Streamable HTTP rules' id-less 403 —
// and is no orphan; another id is one, in a JSON body or an SSE event.
func TestHTTPIdlessErrorIsNoOrphan(t *testing.T) {
	for _, tt := range []struct {
		name, contentType, body string
		status                  int
		orphans                 int
	}{
		{"absent id, 403", "application/json", `{"jsonrpc":"2.0","error":{"code":-32000,"message":"Forbidden: invalid Origin"}}`, 403, 0},
		{"null id, 400", "application/json", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`, 400, 0},
		{"null id on SSE", "text/event-stream", "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,\"message\":\"bad\"}}\n\n", 200, 0},
		{"null id result", "application/json", `{"jsonrpc":"2.0","id":null,"result":{}}`, 200, 1},
		{"other id error", "application/json", `{"jsonrpc":"2.0","id":2,"error":{"code":-32600,"message":"bad"}}`, 400, 1},
		{"other id on SSE", "text/event-stream", "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}\n\n", 200, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", tt.contentType)
				w.WriteHeader(tt.status)
				io.WriteString(w, tt.body)
			}))
			defer srv.Close()
			tr := &HTTP{URL: srv.URL}
			_, _ = tr.Exchange(context.Background(), &Outgoing{ID: []byte("1"), Method: "tools/list", Body: []byte(`{}`)})
			if n := tr.AnomalyCounts()[AnomalyOrphan]; n != tt.orphans {
				t.Errorf("%d orphans, want %d: %+v", n, tt.orphans, tr.Anomalies())
			}
		})
	}
}

// A GET answered with an event stream (the standalone stream of the
// earlier revisions, which stays open) is answered by its status and
// content type: the exchange returns at once, not at the timeout (issue
// 21: mcp-go held it open for the whole --timeout of every run).
func TestHTTPGetStreamIsAnswerAtOnce(t *testing.T) {
	srv := streamServer(t, nil, true)
	tr := &HTTP{URL: srv.URL}
	ctx, cancel := WithTimeout(context.Background(), 60*time.Second) // far over the answer's time, even loaded
	defer cancel()
	start := time.Now()
	x, err := tr.Exchange(ctx, &Outgoing{Method: "", HTTPMethod: http.MethodGet})
	if err != nil || x.Status != http.StatusOK || x.ContentType != "text/event-stream" {
		t.Fatalf("GET: %v, %+v", err, x)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("GET took %v; the open stream's headers were the answer", d)
	}
}

// A second answer to the request inside its own SSE stream is a duplicate,
// as it is on stdio: the stream is read to its end after the response
// (which SHOULD end it), for sseTail at most when it stays open.
func TestHTTPDuplicateInStream(t *testing.T) {
	ev := "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n"
	for _, tt := range []struct {
		name string
		open bool // the stream stays open after the second answer
	}{{"stream ends", false}, {"stream stays open", true}} {
		t.Run(tt.name, func(t *testing.T) {
			srv := streamServer(t, []string{ev, ev}, tt.open)
			tr := &HTTP{URL: srv.URL}
			ctx, cancel := WithTimeout(context.Background(), 60*time.Second) // far over the answer's time, even loaded
			defer cancel()
			start := time.Now()
			x, err := tr.Exchange(ctx, &Outgoing{ID: []byte("1"), Method: "tools/list", Body: []byte(`{}`)})
			if err != nil || x.Response == nil {
				t.Fatalf("Exchange: %v, %+v", err, x)
			}
			if d := time.Since(start); d > 30*time.Second {
				t.Errorf("took %v", d)
			}
			if n := tr.AnomalyCounts()[AnomalyDuplicate]; n != 1 {
				t.Errorf("%d duplicates recorded, want 1: %+v", n, tr.Anomalies())
			}
		})
	}
}

// After the response, only a second answer to the same request counts:
// an answer to another id on the stream (servers of the earlier revisions
// may route one there) is not this request's business.
func TestHTTPTailIgnoresOtherIDs(t *testing.T) {
	body := "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}\n\n"
	srv := httptest.NewServer(rawHandler("text/event-stream", body))
	defer srv.Close()
	tr := &HTTP{URL: srv.URL}
	x, err := tr.Exchange(context.Background(), &Outgoing{ID: []byte("1"), Method: "tools/list", Body: []byte(`{}`)})
	if err != nil || x.Response == nil || string(x.Response.ID) != "1" || len(x.Messages) != 1 {
		t.Fatalf("%v, %+v", err, x)
	}
	if as := tr.Anomalies(); len(as) != 0 {
		t.Errorf("anomalies %+v", as)
	}
}

// streamServer answers every request with an event stream of events,
// each flushed, then ends it or, when open, holds it until the client
// leaves (or the test ends).
func streamServer(t *testing.T, events []string, open bool) *httptest.Server {
	t.Helper()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		for _, ev := range events {
			io.WriteString(w, ev)
			w.(http.Flusher).Flush()
		}
		w.(http.Flusher).Flush()
		if open {
			select {
			case <-r.Context().Done():
			case <-release:
			}
		}
	}))
	t.Cleanup(func() { close(release); srv.Close() })
	return srv
}

// An answer nested deeper than the parser's bound is named as such (before:
// "no MCP server at the target" with a body excerpt of brackets).
func TestHTTPTooDeep(t *testing.T) {
	const n = 50000
	body := `{"jsonrpc":"2.0","id":1,"result":` + strings.Repeat("[", n) + strings.Repeat("]", n) + `}`
	srv := httptest.NewServer(rawHandler("application/json", body))
	defer srv.Close()
	_, err := Connect(context.Background(), &HTTPTarget{URL: srv.URL}, Options{Timeout: 30 * time.Second})
	var nm *NotMCPError
	if !errors.As(err, &nm) || !strings.HasPrefix(err.Error(), "the server's answer nests arrays and objects more than 10000 deep") || !strings.Contains(err.Error(), "RFC 8259 §9") {
		t.Errorf("err = %v, want the nesting bound named", err)
	}
}
