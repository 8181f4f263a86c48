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
	"testing"
	"time"
)

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
			if d := time.Since(start); d > 2*time.Second {
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
	srv := httptest.NewServer(modernHandler(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	defer srv.Close()
	const timeout = 300 * time.Millisecond
	c, err := Connect(context.Background(), &HTTPTarget{URL: srv.URL}, Options{Timeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	start := time.Now()
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
	if d := time.Since(start); d > unresponsiveAfter*timeout+time.Second {
		t.Errorf("40 requests took %v", d)
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
		{"401", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="mcp"`)
			w.WriteHeader(401)
		}, new(*UnauthorizedError), "unauthorized: the server wants credentials (see --header): HTTP 401"},
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
