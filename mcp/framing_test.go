package mcp

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"
)

// rawHTTP serves every request on a loopback listener with the bytes
// answer returns for it, written as they are, then closes the connection:
// a server whose HTTP framing net/http's server would never produce.
func rawHTTP(t *testing.T, answer func() string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				c.SetDeadline(time.Now().Add(10 * time.Second))
				req, err := http.ReadRequest(bufio.NewReader(c))
				if err != nil {
					return
				}
				req.Body.Close()
				c.Write([]byte(answer()))
			}()
		}
	}()
	return "http://" + l.Addr().String() + "/mcp"
}

const framedAnswer = `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[]}}`

// TestFramingErrors: a body short of its Content-Length and a broken
// chunked coding are each an AnomalyFraming saying what happened, while a
// correct answer of either framing is none; what did arrive is still read.
func TestFramingErrors(t *testing.T) {
	head := "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
	cases := []struct {
		name, answer, detail string
	}{
		{"content-length", head + fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(framedAnswer)+5, framedAnswer), fmt.Sprintf("ended after %d bytes of the %d its Content-Length declares", len(framedAnswer), len(framedAnswer)+5)},
		{"chunk longer than its data", head + fmt.Sprintf("Transfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n0\r\n\r\n", len(framedAnswer)+40, framedAnswer), "chunked body"},
		{"chunk size not hex", head + fmt.Sprintf("Transfer-Encoding: chunked\r\n\r\n%d\r\n%s\r\nzz\r\n\r\n", len(framedAnswer), framedAnswer), "chunked body"},
		{"good content-length", head + fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(framedAnswer), framedAnswer), ""},
		{"good chunked", head + fmt.Sprintf("Transfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n0\r\n\r\n", len(framedAnswer), framedAnswer), ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			url := rawHTTP(t, func() string { return c.answer })
			tr := &HTTP{URL: url}
			defer tr.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			x, _ := tr.Exchange(ctx, &Outgoing{ID: []byte("1"), Method: "tools/list", Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)})
			var got []Anomaly
			for _, a := range tr.Anomalies() {
				if a.Kind == AnomalyFraming {
					got = append(got, a)
				}
			}
			if c.detail == "" {
				if len(got) != 0 || x.Response == nil {
					t.Fatalf("anomalies %+v, response %v", got, x.Response)
				}
				return
			}
			if len(got) != 1 || !strings.Contains(got[0].Detail, c.detail) || !strings.Contains(got[0].Detail, "tools/list") {
				t.Fatalf("framing anomalies %+v, want one saying %q", got, c.detail)
			}
			if !strings.Contains(string(x.Body), `"tools":[]`) {
				t.Errorf("what arrived was not kept: %q", x.Body)
			}
		})
	}
}

// TestBytesAfterResponse: bytes after a complete response, on a
// connection with no request outstanding, are an AnomalyFraming quoting
// them; the case that leaked through net/http's log: a Content-Length
// counted in characters, one short for "é".
func TestBytesAfterResponse(t *testing.T) {
	head := "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
	withE := `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[],"note":"café"}}`
	cases := []struct{ name, answer, extra string }{
		{"stray bytes", head + fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(framedAnswer), framedAnswer) + "\r\nstray: Bearer s3cret\r\n", "stray: Bearer s3cret"},
		{"length in characters", head + fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len([]rune(withE)), withE), "}"},
		{"after the last chunk", head + fmt.Sprintf("Transfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n0\r\n\r\nHTTP/1.1 200 OK\r\n\r\n", len(framedAnswer), framedAnswer), "HTTP/1.1 200 OK"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			tr := &HTTP{URL: rawHTTP(t, func() string { return c.answer })}
			defer tr.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			tr.Exchange(ctx, &Outgoing{ID: []byte("1"), Method: "tools/list", Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)})
			// net/http reads the rest on its own goroutine once the body
			// is done: wait for the finding, bounded by the context.
			for ctx.Err() == nil && tr.AnomalyCounts()[AnomalyFraming] == 0 {
				time.Sleep(5 * time.Millisecond)
			}
			got := tr.Anomalies()
			var framing []Anomaly
			for _, a := range got {
				if a.Kind == AnomalyFraming {
					framing = append(framing, a)
				}
			}
			if len(framing) != 1 || !strings.Contains(framing[0].Evidence, c.extra) || !strings.Contains(framing[0].Detail, "after a complete response") {
				t.Fatalf("framing anomalies %+v, want one quoting %q", framing, c.extra)
			}
		})
	}
}

// TestKeepAliveIsNoFinding: a correct server's answers of every framing,
// many on one connection (Content-Length, chunked, 204, HEAD, an interim
// 103), are no finding.
func TestKeepAliveIsNoFinding(t *testing.T) {
	big := strings.Repeat("x", 100<<10)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Query().Get("kind") {
		case "chunked":
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","big":"`)
			http.NewResponseController(w).Flush()
			io.WriteString(w, big+`"}}`)
		case "empty":
			w.WriteHeader(http.StatusNoContent)
		case "early":
			w.Header().Set("Link", "</x>; rel=preload")
			w.WriteHeader(http.StatusEarlyHints)
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, framedAnswer)
		default:
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Length", strconv.Itoa(len(framedAnswer)))
			io.WriteString(w, framedAnswer)
		}
	}))
	defer srv.Close()
	tr := &HTTP{URL: srv.URL}
	defer tr.Close()
	hc := tr.httpClient()
	for i := range 40 {
		kind := []string{"chunked", "empty", "early", "length"}[i%4]
		method := http.MethodPost
		if i%5 == 0 {
			method = http.MethodHead
		}
		req, _ := http.NewRequest(method, srv.URL+"?kind="+kind, strings.NewReader("{}"))
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	ctx := context.Background()
	for range 5 {
		tr.Exchange(ctx, &Outgoing{ID: []byte("1"), Method: "tools/list", Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)})
	}
	if n := tr.AnomalyCounts()[AnomalyFraming]; n != 0 {
		t.Fatalf("%d framing anomalies on a correct server: %+v", n, tr.Anomalies())
	}
}

// FuzzFramer: the framer takes any bytes a server sends without panic,
// and what it finds does not depend on how the reads split them.
func FuzzFramer(f *testing.F) {
	f.Add([]byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}extra"), 5)
	f.Add([]byte("HTTP/1.1 103 Early\r\n\r\nHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2;x=y\r\n{}\r\n0\r\nT: v\r\n\r\nX"), 40)
	f.Add([]byte("HTTP/1.1 204 No Content\r\n\r\nabc"), 3)
	f.Add([]byte("HTTP/1.1 200 OK\r\nContent-Length: 1\r\ncontent-length: 2\r\n\r\nab"), 1)
	f.Fuzz(func(t *testing.T, b []byte, cut int) {
		find := func(parts ...[]byte) bool {
			var fr framer
			fr.wrote([]byte("POST /mcp HTTP/1.1\r\n"))
			found := false
			for _, p := range parts {
				if fr.read(p) != nil {
					found = true
				}
			}
			return found
		}
		whole := find(b)
		if len(b) == 0 {
			return
		}
		cut = ((cut % len(b)) + len(b)) % len(b)
		if split := find(b[:cut], b[cut:]); split != whole {
			t.Fatalf("%q: found %v whole, %v split at %d", b, whole, split, cut)
		}
	})
}
