package review

// The cases, by category. Each HTTP case answers server/discover
// correctly (an MCP server answered: "no MCP server" would be false) and
// misbehaves on the requests after it unless its name says otherwise.

import (
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/mcp-eval/mcp-eval/internal/mcptest"
	"github.com/mcp-eval/mcp-eval/internal/redact/redacttest"
	"github.com/mcp-eval/mcp-eval/llm/llmtest"
)

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

const noMCP = `(?i)no MCP server`

func httpArgs(u string) []string {
	return []string{"conformance", "--server-url", u, "--runs", "1",
		"--header", "X-Api-Key: " + hdrSecret, "--header", "Authorization: Bearer $R27_BEARER"}
}

// oauthArgs: the client credentials grant (exclusive with a static
// Authorization header).
func oauthArgs(u string) []string {
	return []string{"conformance", "--server-url", u, "--runs", "1", "--header", "X-Api-Key: " + hdrSecret,
		"--oauth-client-id", "review", "--oauth-client-secret", "$R27_CLIENT_SECRET"}
}

func stdioArgs(cmd string) []string {
	return []string{"conformance", "--server-cmd", cmd, "--runs", "1", "--secrets", "R27_SVC"}
}

func allCases() []kase {
	var ks []kase
	ks = append(ks, httpCases()...)
	ks = append(ks, stdioCases()...)
	ks = append(ks, fileCases()...)
	ks = append(ks, signalCases()...)
	ks = append(ks, secretCases()...)
	return ks
}

// jsonAnswer writes a 200 application/json answer.
func jsonAnswer(w http.ResponseWriter, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.Write([]byte(body))
}

func rpcResult(id, result string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, id, result)
}

const emptyTools = `{"tools":[],"resultType":"complete","ttlMs":0,"cacheScope":"public"}`

// httpAct is an HTTP case: a misbehaviour after discovery, what the run
// must say, and its acceptable exits.
type httpAct struct {
	name    string
	a       act
	exits   []int
	mention []string
	control bool
	pick    func(string) bool
	extra   []string // more flags
}

func onDiscover(m string) bool { return m == "server/discover" }

func httpCases() []kase {
	ok := []int{0, 1}
	acts := []httpAct{
		{name: "hang", a: func(w http.ResponseWriter, r *http.Request, m, id string) { <-r.Context().Done() }},
		{name: "headers then no body", a: func(w http.ResponseWriter, r *http.Request, m, id string) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(200)
			flush(w)
			<-r.Context().Done()
		}},
		{name: "trickle body 1 byte/500ms", a: func(w http.ResponseWriter, r *http.Request, m, id string) {
			w.Header().Set("Content-Type", "application/json")
			msg := rpcResult(id, emptyTools)
			for i := 0; i < len(msg) && wait(r, 500*time.Millisecond); i++ {
				w.Write([]byte{msg[i]})
				flush(w)
			}
		}},
		{name: "trickle headers 1 byte/300ms", a: func(w http.ResponseWriter, r *http.Request, m, id string) {
			conn, _ := hijack(w)
			defer conn.Close()
			msg := "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Slow: " + strings.Repeat("s", 200) + "\r\n\r\n"
			for i := 0; i < len(msg); i++ {
				if _, err := conn.Write([]byte{msg[i]}); err != nil {
					return
				}
				time.Sleep(300 * time.Millisecond)
			}
		}},
		{name: "slowloris SSE comments", a: func(w http.ResponseWriter, r *http.Request, m, id string) {
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(200)
			for wait(r, 400*time.Millisecond) {
				w.Write([]byte(":\n"))
				flush(w)
			}
		}},
		{name: "slowloris SSE one byte of an event at a time", a: func(w http.ResponseWriter, r *http.Request, m, id string) {
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(200)
			ev := "data: " + rpcResult(id, emptyTools) + "\n\n"
			for i := 0; i < len(ev) && wait(r, 300*time.Millisecond); i++ {
				w.Write([]byte{ev[i]})
				flush(w)
			}
		}},
		{name: "SSE notifications forever, no answer", a: func(w http.ResponseWriter, r *http.Request, m, id string) {
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(200)
			for wait(r, 200*time.Millisecond) {
				w.Write([]byte(`data: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"tick"}}` + "\n\n"))
				flush(w)
			}
		}},
		{name: "SSE event: lines forever, no data", a: func(w http.ResponseWriter, r *http.Request, m, id string) {
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(200)
			for wait(r, 50*time.Millisecond) {
				w.Write([]byte("event: ping\nid: 1\n\n"))
				flush(w)
			}
		}},
		{name: "SSE one endless data line", a: func(w http.ResponseWriter, r *http.Request, m, id string) {
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(200)
			chunk := []byte("data: " + strings.Repeat("x", 64<<10))
			for r.Context().Err() == nil {
				if _, err := w.Write(chunk[6:]); err != nil {
					return
				}
			}
		}},
		{name: "1xx flood, 103 every 20ms", a: func(w http.ResponseWriter, r *http.Request, m, id string) {
			conn, _ := hijack(w)
			defer conn.Close()
			for {
				if _, err := conn.Write([]byte("HTTP/1.1 103 Early Hints\r\nLink: </x>; rel=preload\r\n\r\n")); err != nil {
					return
				}
				time.Sleep(20 * time.Millisecond)
			}
		}},
		{name: "1xx flood, 100 Continue as fast as it goes", a: func(w http.ResponseWriter, r *http.Request, m, id string) {
			conn, _ := hijack(w)
			defer conn.Close()
			for range 2_000_000 {
				if _, err := conn.Write([]byte("HTTP/1.1 100 Continue\r\n\r\n")); err != nil {
					return
				}
			}
		}},
		{name: "500 1xx then the answer", exits: ok, a: func(w http.ResponseWriter, r *http.Request, m, id string) {
			conn, rw := hijack(w)
			defer conn.Close()
			for range 500 {
				rw.WriteString("HTTP/1.1 103 Early Hints\r\n\r\n")
			}
			body := rpcResult(id, `{"resultType":"complete","ttlMs":0,"cacheScope":"public"}`)
			fmt.Fprintf(rw, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", len(body), body)
			rw.Flush()
		}},
		{name: "huge page over --max-message-bytes", extra: []string{"--max-message-bytes", "1MiB"}, mention: []string{`(?i)MiB|bytes|larger|too (big|large)|limit`},
			a: func(w http.ResponseWriter, r *http.Request, m, id string) {
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"resultType":"complete","ttlMs":0,"cacheScope":"public","tools":[`, id)
				for i := range 40000 {
					if i > 0 {
						w.Write([]byte(","))
					}
					fmt.Fprintf(w, `{"name":"t%d","description":"%s","inputSchema":{"type":"object"}}`, i, strings.Repeat("d", 100))
				}
				w.Write([]byte("]}}"))
			}},
		{name: "100000 tools in one page", exits: ok, mention: nil, a: func(w http.ResponseWriter, r *http.Request, m, id string) {
			if m != "tools/list" {
				jsonAnswer(w, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"Method not found"}}`, id))
				return
			}
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"resultType":"complete","ttlMs":0,"cacheScope":"public","tools":[`, id)
			for i := range 100000 {
				if i > 0 {
					w.Write([]byte(","))
				}
				fmt.Fprintf(w, `{"name":"tool_%d","description":"Tool %d.","inputSchema":{"type":"object"}}`, i, i)
			}
			w.Write([]byte("]}}"))
		}},
		{name: "nesting 50000 deep on discovery", pick: onDiscover, mention: []string{`(?i)nest|depth|deep`}, a: func(w http.ResponseWriter, r *http.Request, m, id string) {
			jsonAnswer(w, rpcResult(id, strings.Repeat("[", 50000)+strings.Repeat("]", 50000)))
		}},
		{name: "nesting 10000 deep in tools/list", mention: []string{`(?i)nest|depth|deep`}, a: func(w http.ResponseWriter, r *http.Request, m, id string) {
			jsonAnswer(w, rpcResult(id, `{"tools":[{"name":"t","inputSchema":`+strings.Repeat(`{"a":`, 10000)+"1"+strings.Repeat("}", 10000)+`}],"resultType":"complete","ttlMs":0,"cacheScope":"public"}`))
		}},
		{name: "nesting of empty arrays 100000 deep", mention: []string{`(?i)nest|depth|deep`}, a: func(w http.ResponseWriter, r *http.Request, m, id string) {
			jsonAnswer(w, rpcResult(id, `{"tools":`+strings.Repeat("[", 100000)+strings.Repeat("]", 100000)+`}`))
		}},
		{name: "charset utf-16 body", a: func(w http.ResponseWriter, r *http.Request, m, id string) {
			w.Header().Set("Content-Type", "application/json; charset=utf-16")
			s := rpcResult(id, emptyTools)
			b := []byte{0xff, 0xfe}
			for _, c := range []byte(s) {
				b = append(b, c, 0)
			}
			w.Write(b)
		}},
		{name: "invalid UTF-8 in a description", mention: []string{`(?i)utf-?8`}, a: func(w http.ResponseWriter, r *http.Request, m, id string) {
			jsonAnswer(w, rpcResult(id, `{"tools":[{"name":"t","description":"caf\xe9 \xff\xfe \xed\xa0\x80","inputSchema":{"type":"object"}}],"resultType":"complete","ttlMs":0,"cacheScope":"public"}`))
		}},
		{name: "lone surrogate escape", exits: ok, a: func(w http.ResponseWriter, r *http.Request, m, id string) {
			jsonAnswer(w, rpcResult(id, `{"tools":[{"name":"t","description":"half \ud800 a pair","inputSchema":{"type":"object"}}],"resultType":"complete","ttlMs":0,"cacheScope":"public"}`))
		}},
		{name: "gzip header, not gzip", a: func(w http.ResponseWriter, r *http.Request, m, id string) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Encoding", "gzip")
			w.Write([]byte("this is not gzip at all"))
		}},
		{name: "Content-Encoding br", a: func(w http.ResponseWriter, r *http.Request, m, id string) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Encoding", "br")
			w.Write([]byte{0x1b, 0xff, 0x00, 0x12, 0x34})
		}},
		{name: "307 to itself", mention: []string{`(?i)307|redirect`}, a: func(w http.ResponseWriter, r *http.Request, m, id string) {
			http.Redirect(w, r, r.URL.String(), http.StatusTemporaryRedirect)
		}},
		{name: "308 to another path", mention: []string{`(?i)308|redirect`}, a: func(w http.ResponseWriter, r *http.Request, m, id string) {
			http.Redirect(w, r, "/elsewhere/mcp", http.StatusPermanentRedirect)
		}},
		{name: "302 to a metadata address", mention: []string{`(?i)302|redirect`}, a: func(w http.ResponseWriter, r *http.Request, m, id string) {
			http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusFound)
		}},
		{name: "307 to file URL", mention: []string{`(?i)307|redirect`}, a: func(w http.ResponseWriter, r *http.Request, m, id string) {
			http.Redirect(w, r, "file:///etc/passwd", http.StatusTemporaryRedirect)
		}},
		{name: "307 on discovery", pick: onDiscover, mention: []string{`(?i)307|redirect`}, a: func(w http.ResponseWriter, r *http.Request, m, id string) {
			http.Redirect(w, r, "/moved", http.StatusTemporaryRedirect)
		}},
		{name: "429 Retry-After 3600", mention: []string{`429|(?i)too many`}, a: func(w http.ResponseWriter, r *http.Request, m, id string) {
			w.Header().Set("Retry-After", "3600")
			http.Error(w, "slow down", http.StatusTooManyRequests)
		}},
		{name: "429 on discovery", pick: onDiscover, mention: []string{`429|(?i)too many`}, a: func(w http.ResponseWriter, r *http.Request, m, id string) {
			w.Header().Set("Retry-After", "1")
			http.Error(w, "slow down", http.StatusTooManyRequests)
		}},
		{name: "503 Retry-After in 2099", mention: []string{`503|(?i)unavailable`}, a: func(w http.ResponseWriter, r *http.Request, m, id string) {
			w.Header().Set("Retry-After", "Wed, 21 Oct 2099 07:28:00 GMT")
			http.Error(w, "maintenance", http.StatusServiceUnavailable)
		}},
		{name: "bytes after response", a: func(w http.ResponseWriter, r *http.Request, m, id string) {
			conn, rw := hijack(w)
			defer conn.Close()
			body := rpcResult(id, emptyTools)
			fmt.Fprintf(rw, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%sHTTP/1.1 200 OK\r\nX-Echo: %s %s\r\n\r\nleftover %s", len(body), body,
				r.Header.Get("X-Api-Key"), r.Header.Get("Authorization"), b64(r.Header.Get("Authorization")))
			rw.Flush()
			time.Sleep(1500 * time.Millisecond)
		}},
		{name: "short body, then close", mention: []string{`(?i)content-length|short|unexpected EOF|truncated`}, a: func(w http.ResponseWriter, r *http.Request, m, id string) {
			conn, rw := hijack(w)
			defer conn.Close()
			body := rpcResult(id, emptyTools)
			fmt.Fprintf(rw, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body)+500, body)
			rw.Flush()
		}},
		{name: "short body, connection kept open", a: func(w http.ResponseWriter, r *http.Request, m, id string) {
			conn, rw := hijack(w)
			defer conn.Close()
			body := rpcResult(id, emptyTools)
			fmt.Fprintf(rw, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body)+500, body)
			rw.Flush()
			time.Sleep(30 * time.Second)
		}},
		{name: "chunk longer than its data", mention: []string{`(?i)chunk|unexpected EOF|truncated|framing`}, a: func(w http.ResponseWriter, r *http.Request, m, id string) {
			conn, rw := hijack(w)
			defer conn.Close()
			body := rpcResult(id, emptyTools)
			fmt.Fprintf(rw, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s", len(body)+100, body)
			rw.Flush()
		}},
		{name: "invalid chunk size", a: func(w http.ResponseWriter, r *http.Request, m, id string) {
			conn, rw := hijack(w)
			defer conn.Close()
			rw.WriteString("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n")
			rw.Flush()
		}},
		{name: "endless chunk extension", a: func(w http.ResponseWriter, r *http.Request, m, id string) {
			conn, rw := hijack(w)
			defer conn.Close()
			rw.WriteString("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n10;ext=")
			rw.Flush()
			chunk := []byte(strings.Repeat("e", 64<<10))
			for range 4096 {
				if _, err := conn.Write(chunk); err != nil {
					return
				}
			}
		}},
		{name: "two Content-Length headers", a: func(w http.ResponseWriter, r *http.Request, m, id string) {
			conn, rw := hijack(w)
			defer conn.Close()
			body := rpcResult(id, emptyTools)
			fmt.Fprintf(rw, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\nContent-Length: 5\r\n\r\n%s", len(body), body)
			rw.Flush()
		}},
		{name: "no status line", a: func(w http.ResponseWriter, r *http.Request, m, id string) {
			conn, rw := hijack(w)
			defer conn.Close()
			rw.WriteString(rpcResult(id, emptyTools))
			rw.Flush()
		}},
		{name: "bad status line", a: func(w http.ResponseWriter, r *http.Request, m, id string) {
			conn, rw := hijack(w)
			defer conn.Close()
			rw.WriteString("HTTP/1.1 two hundred OK\r\n\r\n")
			rw.Flush()
		}},
		{name: "connection closed at once", a: func(w http.ResponseWriter, r *http.Request, m, id string) {
			conn, _ := hijack(w)
			conn.Close()
		}},
		{name: "reset mid-body", a: func(w http.ResponseWriter, r *http.Request, m, id string) {
			conn, rw := hijack(w)
			fmt.Fprintf(rw, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":%s,\"res", id)
			rw.Flush()
			if tc, ok := conn.(interface{ SetLinger(int) error }); ok {
				tc.SetLinger(0)
			}
			conn.Close()
		}},
		{name: "duplicate ttlMs, 1e400 shadowed", mention: []string{`(?i)duplicate`}, a: func(w http.ResponseWriter, r *http.Request, m, id string) {
			jsonAnswer(w, rpcResult(id, `{"tools":[],"resultType":"complete","ttlMs":1e400,"ttlMs":0,"cacheScope":"public"}`))
		}},
		{name: "duplicate result members", mention: []string{`(?i)duplicate`}, a: func(w http.ResponseWriter, r *http.Request, m, id string) {
			jsonAnswer(w, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"bad":true},"result":%s}`, id, emptyTools))
		}},
		{name: "duplicate id members", mention: []string{`(?i)duplicate`}, a: func(w http.ResponseWriter, r *http.Request, m, id string) {
			jsonAnswer(w, fmt.Sprintf(`{"jsonrpc":"2.0","id":"other","id":%s,"result":%s}`, id, emptyTools))
		}},
		{name: "duplicate keys on discovery", pick: onDiscover, mention: []string{`(?i)duplicate`}, a: func(w http.ResponseWriter, r *http.Request, m, id string) {
			jsonAnswer(w, rpcResult(id, `{"resultType":"complete","supportedVersions":["1999-01-01"],"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"serverInfo":{"name":"dup","version":"1"},"ttlMs":0,"cacheScope":"public"}`))
		}},
		{name: "ESC, BEL, U+202E in tool text", control: true, a: func(w http.ResponseWriter, r *http.Request, m, id string) {
			jsonAnswer(w, rpcResult(id, `{"tools":[{"name":"evil\u001b[2J\u0007\u202etool","description":"\u001b]0;pwned\u0007 \u202eevil \u009b31m \u0000","inputSchema":{"type":"object"}}],"resultType":"complete","ttlMs":0,"cacheScope":"public"}`))
		}},
		{name: "ESC in serverInfo on discovery", pick: onDiscover, exits: ok, control: true, a: func(w http.ResponseWriter, r *http.Request, m, id string) {
			jsonAnswer(w, rpcResult(id, `{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"serverInfo":{"name":"srv\u001b[31mRED\u001b[0m\u0007\u202e","version":"1\u2066x"},"ttlMs":0,"cacheScope":"public"}`))
		}},
		{name: "ESC in an error message", control: true, a: func(w http.ResponseWriter, r *http.Request, m, id string) {
			jsonAnswer(w, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32603,"message":"boom \u001b[2K\u001b[1A\u0007\u202e","data":"\u001b]8;;http://evil\u0007link"}}`, id))
		}},
		{name: "raw ESC bytes in a 500 body", control: true, a: func(w http.ResponseWriter, r *http.Request, m, id string) {
			w.WriteHeader(500)
			w.Write([]byte("internal error \x1b[2J\x07 \u202e"))
		}},
		{name: "a 1 MiB header", a: func(w http.ResponseWriter, r *http.Request, m, id string) {
			w.Header().Set("X-Big", strings.Repeat("h", 1<<20))
			jsonAnswer(w, rpcResult(id, emptyTools))
		}},
		{name: "100000 headers", a: func(w http.ResponseWriter, r *http.Request, m, id string) {
			conn, rw := hijack(w)
			defer conn.Close()
			rw.WriteString("HTTP/1.1 200 OK\r\n")
			for i := range 100000 {
				fmt.Fprintf(rw, "X-H%d: v\r\n", i)
			}
			rw.WriteString("\r\n")
			rw.Flush()
		}},
		{name: "a 64 KiB Mcp-Session-Id", exits: ok, a: func(w http.ResponseWriter, r *http.Request, m, id string) {
			w.Header().Set("Mcp-Session-Id", strings.Repeat("S", 64<<10))
			jsonAnswer(w, rpcResult(id, emptyTools))
		}},
		{name: "HTML page, 200", a: func(w http.ResponseWriter, r *http.Request, m, id string) {
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte("<html><body><h1>Welcome to nginx!</h1></body></html>"))
		}},
		{name: "empty 200 JSON body", a: func(w http.ResponseWriter, r *http.Request, m, id string) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(200)
		}},
		{name: "JSON as text/plain", a: func(w http.ResponseWriter, r *http.Request, m, id string) {
			w.Header().Set("Content-Type", "text/plain")
			w.Write([]byte(rpcResult(id, emptyTools)))
		}},
		{name: "BOM before the JSON", a: func(w http.ResponseWriter, r *http.Request, m, id string) {
			jsonAnswer(w, "\ufeff"+rpcResult(id, emptyTools))
		}},
		{name: "trailing garbage after the JSON", a: func(w http.ResponseWriter, r *http.Request, m, id string) {
			jsonAnswer(w, rpcResult(id, emptyTools)+"}}garbage")
		}},
		{name: "two JSON values", a: func(w http.ResponseWriter, r *http.Request, m, id string) {
			jsonAnswer(w, rpcResult(id, emptyTools)+rpcResult(id, emptyTools))
		}},
		{name: "NUL bytes in the body", a: func(w http.ResponseWriter, r *http.Request, m, id string) {
			jsonAnswer(w, "\x00\x00"+rpcResult(id, emptyTools))
		}},
		{name: "answer with another id", a: func(w http.ResponseWriter, r *http.Request, m, id string) {
			jsonAnswer(w, rpcResult("987654", emptyTools))
		}},
		{name: "500 with a 20 MB body", a: func(w http.ResponseWriter, r *http.Request, m, id string) {
			w.WriteHeader(500)
			for range 320 {
				if _, err := w.Write([]byte(strings.Repeat("error ", 10923))); err != nil {
					return
				}
			}
		}},
		{name: "404 after discovery", a: func(w http.ResponseWriter, r *http.Request, m, id string) { http.NotFound(w, r) }},
		{name: "401 with a garbage challenge", a: func(w http.ResponseWriter, r *http.Request, m, id string) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="\"\"\", resource_metadata="::::", error=`+strings.Repeat(`"`, 100))
			w.WriteHeader(401)
		}},
		{name: "401 pointing at metadata the server lacks", a: func(w http.ResponseWriter, r *http.Request, m, id string) {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="http://`+r.Host+`/no-such-metadata"`)
			w.WriteHeader(401)
		}},
		{name: "ttlMs 1e400", a: func(w http.ResponseWriter, r *http.Request, m, id string) {
			jsonAnswer(w, rpcResult(id, `{"tools":[],"resultType":"complete","ttlMs":1e400,"cacheScope":"public"}`))
		}},
		{name: "empty object results", a: func(w http.ResponseWriter, r *http.Request, m, id string) { jsonAnswer(w, rpcResult(id, "{}")) }},
		{name: "SSE answer in 1-byte flushes", exits: ok, a: func(w http.ResponseWriter, r *http.Request, m, id string) {
			w.Header().Set("Content-Type", "text/event-stream")
			res := `{"resultType":"complete","ttlMs":0,"cacheScope":"public"}`
			if m == "tools/list" {
				res = emptyTools
			}
			ev := "data: " + rpcResult(id, res) + "\n\n"
			for i := range len(ev) {
				w.Write([]byte{ev[i]})
				flush(w)
			}
		}},
	}
	var ks []kase
	for _, a := range acts {
		ks = append(ks, kase{cat: "http", name: a.name, setup: func(c *cc) spec {
			u := c.hostile(a.a, a.pick)
			s := spec{args: append(httpArgs(u), a.extra...), exits: a.exits, mention: a.mention, noControl: a.control}
			if a.pick == nil {
				s.forbid = []string{noMCP}
			}
			return s
		}})
	}
	// bench/hostile's modes, started by mcp-eval (--server-start).
	for _, mode := range []string{"json200", "sse200", "sse-endless", "gzip", "trickle", "headers", "hang", "pages-endless", "charlen"} {
		ks = append(ks, kase{cat: "http", name: "bench/hostile " + mode + " via --server-start", setup: func(c *cc) spec {
			addr := freeAddr()
			args := httpArgs("http://" + addr + "/mcp")
			args = append(args, "--server-start", reviewHostile+" -mode "+mode+" -addr "+addr)
			s := spec{args: args, forbid: []string{noMCP}}
			if mode == "gzip" {
				// It compresses its 1 GiB bomb before it listens: the
				// start is --start-timeout's, not part of the bound.
				s.args = append(s.args, "--start-timeout", "40s")
				s.bound = 3*c.timeout + 2*time.Second + 40*time.Second
			}
			return s
		}})
	}
	ks = append(ks,
		kase{cat: "http", name: "--server-start whose child ignores SIGTERM", setup: func(c *cc) spec {
			addr := freeAddr()
			cmd, env := c.role("http-sticky:" + addr)
			return spec{args: append(httpArgs("http://"+addr+"/mcp"), "--server-start", cmd), env: []string{env}, exits: []int{0, 1}}
		}},
		kase{cat: "http", name: "--server-start that never listens", setup: func(c *cc) spec {
			addr := freeAddr()
			return spec{args: append(httpArgs("http://"+addr+"/mcp"), "--server-start", "sleep 300", "--start-timeout", "2s"), exits: []int{3}}
		}},
		kase{cat: "http", name: "nothing listening", setup: func(c *cc) spec {
			return spec{args: httpArgs("http://" + freeAddr() + "/mcp"), exits: []int{3}}
		}},
	)
	return ks
}

func stdioCases() []kase {
	type sc struct {
		mode    string
		exits   []int
		mention []string
		forbid  bool // an MCP server answered: "no MCP server" is false
		control bool
		extra   []string
		bound   time.Duration
	}
	ok := []int{0, 1}
	modes := []sc{
		{mode: "garbage", forbid: true},
		{mode: "garbage-first"},
		{mode: "no-newline", forbid: true},
		{mode: "invalid-utf8", forbid: true, mention: []string{`(?i)utf-?8`}},
		{mode: "nul-bytes", forbid: true},
		{mode: "dup-keys", forbid: true, mention: []string{`(?i)duplicate`}},
		{mode: "control-chars", forbid: true, control: true},
		{mode: "exit-after-discover", forbid: true},
		{mode: "crlf", exits: ok, forbid: true},
		{mode: "bom", exits: []int{0, 1, 3}},
		{mode: "lsp-framing"},
		{mode: "deep-discover", mention: []string{`(?i)nest|depth|deep`}},
		{mode: "ignore-sigterm-hang", forbid: true},
		{mode: "child-holds-stdout", exits: ok, forbid: true},
		{mode: "exit-child-holds-stdout", exits: []int{3}},
		{mode: "grandchildren", exits: ok, forbid: true},
		{mode: "fifty-children", exits: ok, forbid: true},
		{mode: "setsid-child", exits: ok, forbid: true},
		{mode: "setsid-clean-env", exits: ok, forbid: true},
		{mode: "ignore-sigterm", exits: ok, forbid: true},
		{mode: "stderr-flood", exits: ok, forbid: true},
		{mode: "stderr-secrets", exits: []int{3}},
		{mode: "stderr-secrets-serving", exits: ok, forbid: true},
		{mode: "exit-1", exits: []int{3}, mention: []string{`configuration missing|exit`}},
		{mode: "silent", exits: []int{3}, extra: []string{"--start-timeout", "2s"}},
		{mode: "close-stdout", exits: []int{3}, extra: []string{"--start-timeout", "2s"}},
		{mode: "banner", exits: ok, forbid: true},
	}
	var ks []kase
	for _, m := range modes {
		ks = append(ks, kase{cat: "stdio", name: m.mode, setup: func(c *cc) spec {
			cmd, env := c.role("stdio:" + m.mode)
			s := spec{args: append(stdioArgs(cmd), m.extra...), env: []string{env}, exits: m.exits, mention: m.mention, noControl: m.control, bound: m.bound}
			if !hasFlag(s.args, "--start-timeout") {
				s.args = append(s.args, "--start-timeout", "2s")
			}
			if m.forbid {
				s.forbid = []string{noMCP}
			} else if s.bound == 0 {
				// A server that never answers as MCP is waited for
				// --start-timeout first (it may be slow to start).
				s.bound = 3*c.timeout + 2*time.Second + 2*time.Second
			}
			return s
		}})
	}
	for _, mode := range []string{"json200", "hang", "endless"} {
		ks = append(ks, kase{cat: "stdio", name: "bench/hostile -stdio " + mode, setup: func(c *cc) spec {
			return spec{args: stdioArgs(reviewHostile + " -stdio -mode " + mode), forbid: []string{noMCP}}
		}})
	}
	ks = append(ks,
		kase{cat: "stdio", name: "slow start 3s, --timeout 2s, --start-timeout 20s", setup: func(c *cc) spec {
			cmd, env := c.stdioFixture(mcptest.Options{StartDelay: 3 * time.Second})
			return spec{args: append(stdioArgs(cmd), "--start-timeout", "20s"), env: []string{env}, exits: []int{0}, forbid: []string{noMCP}, bound: 30 * time.Second}
		}},
		kase{cat: "stdio", name: "slow start 6s past --start-timeout 3s", setup: func(c *cc) spec {
			cmd, env := c.stdioFixture(mcptest.Options{StartDelay: 6 * time.Second})
			return spec{args: append(stdioArgs(cmd), "--start-timeout", "3s"), env: []string{env}, exits: []int{3}, mention: []string{`(?i)start|3s`},
				bound: 3*c.timeout + 2*time.Second + 3*time.Second}
		}},
		kase{cat: "stdio", name: "correct fixture (control)", setup: func(c *cc) spec {
			cmd, env := c.stdioFixture(mcptest.Options{})
			return spec{args: stdioArgs(cmd), env: []string{env}, exits: []int{0}, forbid: []string{noMCP}}
		}},
		kase{cat: "stdio", name: "command not found", setup: func(c *cc) spec {
			return spec{args: stdioArgs("/nonexistent/r27-server --stdio"), exits: []int{2, 3}, mention: []string{`r27-server`}}
		}},
		kase{cat: "stdio", name: "command is a directory", setup: func(c *cc) spec {
			return spec{args: stdioArgs(c.dir), exits: []int{2, 3}, mention: []string{`(?i)directory|permission|exec`}}
		}},
		kase{cat: "stdio", name: "command not executable", setup: func(c *cc) spec {
			p := c.file("server.txt", []byte("not a program"))
			return spec{args: stdioArgs(p), exits: []int{2, 3}, mention: []string{`server.txt`}}
		}},
	)
	return ks
}

func fileCases() []kase {
	deepFlow := []byte("version: 1\ncases: " + strings.Repeat("[", 9000) + strings.Repeat("]", 9000) + "\n")
	deepBlock := func() []byte {
		var b strings.Builder
		for i := range 3000 {
			b.WriteString(strings.Repeat(" ", i) + "a:\n")
		}
		return []byte(b.String())
	}()
	aliasBomb := []byte(`a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
`)
	deepJSON := []byte(strings.Repeat(`{"a":`, 100000) + "1" + strings.Repeat("}", 100000))
	dupYAML := []byte("timeout: 5s\ntimeout: 1h\nruns: 1\n")
	dupJSON := []byte(`{"version":1,"version":2,"checks":[]}`)
	// inputs make the hostile file (its path) for a case.
	inputs := map[string]func(c *cc) string{
		"FIFO without a writer":    func(c *cc) string { return c.fifo("in.fifo") },
		"symlink to a FIFO":        func(c *cc) string { return c.symlink("link.yaml", c.fifo("target.fifo")) },
		"/dev/zero":                func(c *cc) string { return "/dev/zero" },
		"symlink to /dev/zero":     func(c *cc) string { return c.symlink("zero.yaml", "/dev/zero") },
		"/dev/urandom":             func(c *cc) string { return "/dev/urandom" },
		"/proc/self/environ":       func(c *cc) string { return "/proc/self/environ" },
		"symlink to /proc environ": func(c *cc) string { return c.symlink("env.json", "/proc/self/environ") },
		"a directory":              func(c *cc) string { p := c.dir + "/in/dir.yaml"; os.MkdirAll(p, 0o755); return p },
		"a symlink loop": func(c *cc) string {
			c.symlink("loop-b.yaml", c.dir+"/in/loop-a.yaml")
			return c.symlink("loop-a.yaml", c.dir+"/in/loop-b.yaml")
		},
		"deep flow sequences 18 KB": func(c *cc) string { return c.file("deep.yaml", deepFlow) },
		"deep block mappings":       func(c *cc) string { return c.file("deepblock.yaml", deepBlock) },
		"YAML alias bomb":           func(c *cc) string { return c.file("bomb.yaml", aliasBomb) },
		"deep JSON 100000":          func(c *cc) string { return c.file("deep.json", deepJSON) },
		"duplicate YAML keys":       func(c *cc) string { return c.file("dup.yaml", dupYAML) },
		"duplicate JSON keys":       func(c *cc) string { return c.file("dup.json", dupJSON) },
		"a 4 GiB sparse file": func(c *cc) string {
			p := c.file("sparse.yaml", nil)
			os.Truncate(p, 4<<30)
			return p
		},
		"invalid UTF-8": func(c *cc) string { return c.file("bad.yaml", []byte("runs: \xff\xfe\nname: caf\xe9\n")) },
		"NUL bytes":     func(c *cc) string { return c.file("nul.yaml", []byte("runs: 1\x00\x00\x00\n")) },
		"missing file":  func(c *cc) string { return c.dir + "/in/absent.yaml" },
	}
	// flags: how the flag is given and the command around it.
	type fl struct {
		flag string
		args func(c *cc, p string) []string
		ins  []string
	}
	conf := func(flag string) func(c *cc, p string) []string {
		return func(c *cc, p string) []string {
			return append(httpArgs(c.fixture(mcptest.Options{})), flag, p)
		}
	}
	dry := func(flag string, layers string) func(c *cc, p string) []string {
		return func(c *cc, p string) []string {
			a := []string{"run", "--server-url", c.fixture(mcptest.Options{}), "--layers", layers, "--models", "openai:gpt-4o", "--dry-run", "--runs", "1", flag, p}
			if flag != "--golden" {
				a = append(a, "--golden", c.file("tasks.yaml", []byte("- id: a\n  prompt: Weather in Paris?\n  expect_tool: get_forecast\n")))
			}
			return a
		}
	}
	flags := []fl{
		{"--config", conf("--config"), []string{"FIFO without a writer", "symlink to a FIFO", "/dev/zero", "symlink to /dev/zero", "/dev/urandom", "/proc/self/environ", "a directory", "a symlink loop",
			"deep flow sequences 18 KB", "deep block mappings", "YAML alias bomb", "duplicate YAML keys", "a 4 GiB sparse file", "invalid UTF-8", "NUL bytes", "missing file"}},
		{"--baseline", conf("--baseline"), []string{"FIFO without a writer", "/dev/zero", "symlink to /proc environ", "deep JSON 100000", "duplicate JSON keys", "a 4 GiB sparse file", "a directory"}},
		{"--waivers", conf("--waivers"), []string{"FIFO without a writer", "/dev/zero", "deep flow sequences 18 KB", "YAML alias bomb"}},
		{"--oauth-assertion-file", func(c *cc, p string) []string {
			// Read for each token request: a server that wants a token.
			u := c.oauthServer(func(w http.ResponseWriter, r *http.Request) { http.Error(w, `{"error":"invalid_grant"}`, 400) })
			return []string{"conformance", "--server-url", u, "--runs", "1", "--oauth-client-id", "review", "--oauth-assertion-file", p}
		}, []string{"FIFO without a writer", "symlink to a FIFO", "/dev/zero", "/proc/self/environ"}},
		{"--golden", dry("--golden", "behavior"), []string{"FIFO without a writer", "/dev/zero", "deep flow sequences 18 KB", "YAML alias bomb", "duplicate YAML keys", "a 4 GiB sparse file", "/proc/self/environ"}},
		{"--payloads", dry("--payloads", "resilience"), []string{"FIFO without a writer", "deep flow sequences 18 KB"}},
		{"--judge-prompt", dry("--judge-prompt", "behavior"), []string{"FIFO without a writer", "/dev/zero"}},
		{"--prices", dry("--prices", "behavior"), []string{"FIFO without a writer", "deep flow sequences 18 KB"}},
		{"--rerun-failed", dry("--rerun-failed", "behavior"), []string{"FIFO without a writer", "deep JSON 100000"}},
	}
	var ks []kase
	for _, f := range flags {
		for _, in := range f.ins {
			mk := inputs[in]
			if mk == nil {
				panic("no input " + in)
			}
			ks = append(ks, kase{cat: "file", name: f.flag + " " + in, setup: func(c *cc) spec {
				p := mk(c)
				// The error names the flag or the file.
				base := p[strings.LastIndexByte(p, '/')+1:]
				exits := []int{2}
				if f.flag == "--oauth-assertion-file" {
					exits = []int{2, 3} // read when a token is asked for: the server could not be reached
				}
				return spec{args: f.args(c, p), exits: exits, mention: []string{`(?i)` + strings.TrimPrefix(f.flag, "--") + `|` + regexpQuote(base)}}
			}})
		}
	}
	// Files that are fine but for a BOM: accepted, or refused naming it.
	for _, f := range []struct{ flag, body string }{{"--config", "runs: 1\n"}, {"--baseline", "{}"}, {"--waivers", "waivers: []\n"}} {
		ks = append(ks, kase{cat: "file", name: f.flag + " with a UTF-8 BOM", setup: func(c *cc) spec {
			p := c.file("bom"+strings.TrimPrefix(f.flag, "--"), []byte("\ufeff"+f.body))
			return spec{args: conf(f.flag)(c, p), exits: []int{0, 1, 2}, forbid: []string{`invalid character 'ï'`}}
		}})
	}
	return ks
}

func regexpQuote(s string) string {
	r := strings.NewReplacer(`.`, `\.`, `(`, `\(`, `)`, `\)`, `[`, `\[`, `]`, `\]`, `+`, `\+`, `*`, `\*`, `?`, `\?`, `$`, `\$`, `^`, `\^`, `|`, `\|`, `{`, `\{`, `}`, `\}`)
	return r.Replace(s)
}

func signalCases() []kase {
	type phase struct {
		name   string
		after  time.Duration
		report bool
		setup  func(c *cc) ([]string, []string)
	}
	phases := []phase{
		{"while a stdio server starts", 700 * time.Millisecond, false, func(c *cc) ([]string, []string) {
			cmd, env := c.stdioFixture(mcptest.Options{StartDelay: 30 * time.Second})
			return stdioArgs(cmd), []string{env}
		}},
		{"during HTTP checks on a hung server", 1500 * time.Millisecond, true, func(c *cc) ([]string, []string) {
			u := c.hostile(func(w http.ResponseWriter, r *http.Request, m, id string) { <-r.Context().Done() }, nil)
			return httpArgs(u), nil
		}},
		{"during stdio checks", 1500 * time.Millisecond, true, func(c *cc) ([]string, []string) {
			cmd, env := c.stdioFixture(mcptest.Options{})
			a := stdioArgs(cmd)
			a[len(a)-3] = "1000" // --runs
			return a, []string{env}
		}},
		{"during --server-start checks", 1500 * time.Millisecond, true, func(c *cc) ([]string, []string) {
			addr := freeAddr()
			cmd, env := c.role("http:" + addr)
			a := httpArgs("http://" + addr + "/mcp")
			a[4] = "1000"
			return append(a, "--server-start", cmd), []string{env}
		}},
		{"during a model call", 1500 * time.Millisecond, true, func(c *cc) ([]string, []string) {
			model := c.serve(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if strings.HasSuffix(r.URL.Path, "/models") {
					llmtest.WriteJSON(w, llmtest.ModelList([]string{"gpt-4o"}))
					return
				}
				<-r.Context().Done()
			}))
			golden := c.file("tasks.yaml", []byte("- id: a\n  prompt: Weather in Paris?\n  expect_tool: get_forecast\n"))
			return []string{"run", "--server-url", c.fixture(mcptest.Options{}), "--layers", "behavior", "--models", "openai:gpt-4o",
				"--judge-model", "none", "--golden", golden, "--runs", "1", "--model-timeout", "60s"}, []string{"OPENAI_BASE_URL=" + model + "/v1"}
		}},
		{"while waiting for --server-start to listen", 1000 * time.Millisecond, false, func(c *cc) ([]string, []string) {
			cmd, env := c.role("http:" + freeAddr()) // listens elsewhere: never up
			return append(httpArgs("http://"+freeAddr()+"/mcp"), "--server-start", cmd, "--start-timeout", "60s"), []string{env}
		}},
		{"during a token request", 1500 * time.Millisecond, false, func(c *cc) ([]string, []string) {
			u := c.oauthServer(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
			return oauthArgs(u), nil
		}},
	}
	sigs := []struct {
		name string
		sig  syscall.Signal
	}{{"SIGINT", syscall.SIGINT}, {"SIGTERM", syscall.SIGTERM}, {"SIGHUP", syscall.SIGHUP}, {"SIGQUIT", syscall.SIGQUIT}}
	var ks []kase
	for _, p := range phases {
		for _, sg := range sigs {
			ks = append(ks, kase{cat: "signal", name: sg.name + " " + p.name, setup: func(c *cc) spec {
				args, env := p.setup(c)
				return spec{args: args, env: env, sigs: []sigAt{{sg.sig, p.after}}, exits: []int{128 + int(sg.sig)}, interrupted: p.report,
					bound: p.after + 3*c.timeout + 2*time.Second}
			}})
		}
	}
	doubles := []struct {
		name          string
		first, second syscall.Signal
		phase         int
	}{
		{"SIGINT twice during stdio checks", syscall.SIGINT, syscall.SIGINT, 2},
		{"SIGINT twice during --server-start checks", syscall.SIGINT, syscall.SIGINT, 3},
		{"SIGTERM then SIGINT during stdio checks", syscall.SIGTERM, syscall.SIGINT, 2},
		{"SIGINT then SIGTERM during a model call", syscall.SIGINT, syscall.SIGTERM, 4},
		{"SIGHUP twice on a hung HTTP server", syscall.SIGHUP, syscall.SIGHUP, 1},
		{"SIGINT twice while a stdio server starts", syscall.SIGINT, syscall.SIGINT, 0},
	}
	for _, d := range doubles {
		p := phases[d.phase]
		ks = append(ks, kase{cat: "signal", name: d.name, setup: func(c *cc) spec {
			args, env := p.setup(c)
			// The second signal ends the run at once: within 1 s of it.
			return spec{args: args, env: env, sigs: []sigAt{{d.first, p.after}, {d.second, p.after + 150*time.Millisecond}},
				exits: []int{128 + int(d.first), 128 + int(d.second)}, bound: p.after + 1500*time.Millisecond}
		}})
	}
	return ks
}

// oauthServer is an MCP endpoint that wants a token (401 with a
// resource_metadata challenge), its protected resource metadata, and an
// authorization server whose token endpoint token answers.
func (c *cc) oauthServer(token http.HandlerFunc) string {
	var base string
	fix := mcptest.NewHandler(mcptest.Options{})
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		llmtest.WriteJSON(w, map[string]any{"resource": base + "/mcp", "authorization_servers": []string{base}, "scopes_supported": []string{"mcp"}})
	})
	mux.HandleFunc("/.well-known/oauth-protected-resource", func(w http.ResponseWriter, r *http.Request) {
		llmtest.WriteJSON(w, map[string]any{"resource": base + "/mcp", "authorization_servers": []string{base}, "scopes_supported": []string{"mcp"}})
	})
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		llmtest.WriteJSON(w, map[string]any{"issuer": base, "token_endpoint": base + "/token", "grant_types_supported": []string{"client_credentials"},
			"token_endpoint_auth_methods_supported": []string{"client_secret_basic"}, "response_types_supported": []string{"code"}})
	})
	mux.HandleFunc("/token", token)
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.Header.Get("Authorization"), "Bearer tok-") {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+base+`/.well-known/oauth-protected-resource/mcp", scope="mcp"`)
			w.WriteHeader(401)
			return
		}
		fix.ServeHTTP(w, r)
	})
	base = c.serve(mux)
	return base + "/mcp"
}

// secretCases: the planted secrets echoed back by a server, a stdio
// server, a model endpoint and a token endpoint, in every spelling
// redacttest knows and a few more.
func secretCases() []kase {
	var ks []kase
	extra := moreExamples
	server := func(sec, who string, ex redacttest.Example) kase {
		return kase{cat: "secret", name: who + " echoed by an HTTP server: " + ex.Name, setup: func(c *cc) spec {
			e := &mcptest.Echo{}
			switch {
			case ex.Split:
				e.Split = []string{ex.Text}
				e.Texts = []string{"(split)"}
			case ex.Wire != "":
				e.Wire = []string{ex.Wire}
			default:
				e.Texts = []string{ex.Text}
			}
			return spec{args: httpArgs(c.fixture(mcptest.Options{Echo: e})), exits: []int{0, 1}, forbid: []string{noMCP}}
		}}
	}
	for _, ex := range append(redacttest.Examples(hdrSecret), extra(hdrSecret)...) {
		ks = append(ks, server(hdrSecret, "--header X-Api-Key", ex))
	}
	for _, ex := range pick(redacttest.Examples(bearerSecret), "raw", "base64 in a blob at offset 1", "base32", "hex colons", "quoted-printable soft line break", `\u{} text`, "split over two notifications", "base64 MIME lines") {
		ks = append(ks, server(bearerSecret, "$R27_BEARER", ex))
	}
	// A stdio server echoing its environment (which it inherits).
	stdio := func(sec, who string, ex redacttest.Example) kase {
		return kase{cat: "secret", name: who + " echoed by a stdio server: " + ex.Name, setup: func(c *cc) spec {
			e := &mcptest.Echo{}
			if ex.Wire != "" {
				e.Wire = []string{ex.Wire}
			} else {
				e.Texts = []string{ex.Text}
			}
			cmd, env := c.stdioFixture(mcptest.Options{Echo: e})
			return spec{args: stdioArgs(cmd), env: []string{env}, exits: []int{0, 1}, forbid: []string{noMCP}}
		}}
	}
	some := []string{"raw", "base64", "base64 in a blob at offset 1", "base64 in a blob at offset 2", "base32", "hex colons", "url every byte", "json every character escaped",
		`\u{} text`, "html twice", "quoted-printable", "zero-width joiners", "base64 PEM lines", "go quoted"}
	for _, ex := range pick(redacttest.Examples(svcSecret), some...) {
		ks = append(ks, stdio(svcSecret, "--secrets R27_SVC", ex))
	}
	for _, ex := range pick(redacttest.Examples(apiKey), "raw", "base64 in a blob at offset 0", "base32 unpadded", "HEX dashes", `\x text`, "url of json") {
		ks = append(ks, stdio(apiKey, "OPENAI_API_KEY", ex))
	}
	// A model endpoint that echoes the key in its answers.
	golden := "- id: a\n  prompt: What is the forecast for Paris?\n  expect_tool: get_forecast\n"
	for _, ex := range pick(redacttest.Examples(apiKey), "raw", "base64 in a blob at offset 2", "base32", "hex spaces", "quoted-printable every byte", `\u text`, "html named", "split over lines") {
		ks = append(ks, kase{cat: "secret", name: "OPENAI_API_KEY echoed by the model: " + ex.Name, setup: func(c *cc) spec {
			model := c.serve(&llmtest.Echo{Texts: []string{ex.Text}, Tool: "get_forecast", Args: `{"city":"Paris"}`, Models: []string{"echo"}})
			return spec{args: []string{"run", "--server-url", c.fixture(mcptest.Options{}), "--layers", "behavior", "--models", "openai:echo", "--judge-model", "none",
				"--golden", c.file("tasks.yaml", []byte(golden)), "--runs", "1"}, env: []string{"OPENAI_BASE_URL=" + model + "/v1"}, exits: []int{0, 1}}
		}})
	}
	// A model endpoint that quotes the key in its 401.
	for _, form := range []struct{ name, text func(string) string }{
		{func(string) string { return "raw" }, func(h string) string { return "Incorrect API key provided: " + strings.TrimPrefix(h, "Bearer ") }},
		{func(string) string { return "base64 of the header" }, func(h string) string { return "bad auth " + b64(h) }},
		{func(string) string { return "hex" }, func(h string) string { return "key " + hex.EncodeToString([]byte(h)) }},
	} {
		ks = append(ks, kase{cat: "secret", name: "OPENAI_API_KEY quoted by a model's 401: " + form.name(""), setup: func(c *cc) spec {
			model := c.serve(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(401)
				fmt.Fprint(w, llmtest.OpenAIError(401, form.text(r.Header.Get("Authorization"))))
			}))
			return spec{args: []string{"run", "--server-url", c.fixture(mcptest.Options{}), "--layers", "behavior", "--models", "openai:gpt-4o", "--judge-model", "none",
				"--golden", c.file("tasks.yaml", []byte(golden)), "--runs", "1"}, env: []string{"OPENAI_BASE_URL=" + model + "/v1"}, exits: []int{1, 2, 3}, mention: []string{`401`}}
		}})
	}
	// A token endpoint that quotes the request's credentials in its error.
	for _, form := range []struct {
		name string
		text func(r *http.Request) string
	}{
		{"the Basic header", func(r *http.Request) string { return r.Header.Get("Authorization") }},
		{"the decoded Basic credentials", func(r *http.Request) string {
			u, p, _ := r.BasicAuth()
			return u + ":" + p
		}},
		{"the secret in hex", func(r *http.Request) string { _, p, _ := r.BasicAuth(); return hex.EncodeToString([]byte(p)) }},
		{"the secret in base32", func(r *http.Request) string {
			_, p, _ := r.BasicAuth()
			return base32.StdEncoding.EncodeToString([]byte(p))
		}},
		{"the secret url-escaped every byte", func(r *http.Request) string {
			_, p, _ := r.BasicAuth()
			var b strings.Builder
			for _, c := range []byte(p) {
				fmt.Fprintf(&b, "%%%02X", c)
			}
			return b.String()
		}},
		{"the Basic header in a JSON-escaped blob", func(r *http.Request) string {
			return strings.ReplaceAll(b64(`{"auth":"`+r.Header.Get("Authorization")+`"}`), "+", `\u002b`)
		}},
		{"the whole request", func(r *http.Request) string {
			var b strings.Builder
			r.Header.Write(&b)
			return b.String()
		}},
	} {
		ks = append(ks, kase{cat: "secret", name: "client secret quoted by the token endpoint: " + form.name, setup: func(c *cc) spec {
			u := c.oauthServer(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(401)
				fmt.Fprintf(w, `{"error":"invalid_client","error_description":%q}`, "bad client credentials: "+form.text(r))
			})
			return spec{args: oauthArgs(u), exits: []int{1, 3}, mention: []string{`invalid_client|401`}}
		}})
	}
	return ks
}

// moreExamples are spellings redacttest does not list (the review's "cases
// it did not list").
func moreExamples(v string) []redacttest.Example {
	var ex []redacttest.Example
	for k := 1; k <= 4; k++ {
		ex = append(ex, redacttest.Example{Name: fmt.Sprintf("base32 in a token blob at offset %d", k), Text: base32.StdEncoding.EncodeToString([]byte(strings.Repeat("u", k) + v + "!"))})
	}
	ex = append(ex,
		redacttest.Example{Name: "hex inside a longer hex blob", Text: hex.EncodeToString([]byte("sess=" + v + ";"))},
		redacttest.Example{Name: "base64 in a data: URL", Text: "data:text/plain;base64," + b64("key="+v)},
		redacttest.Example{Name: "url-escaped base64 blob", Text: url.QueryEscape(b64("k=" + v + "&x"))},
		redacttest.Example{Name: "base32 lower-case in a blob", Text: strings.ToLower(base32.StdEncoding.EncodeToString([]byte("ab" + v)))},
		redacttest.Example{Name: "base64url in a blob at offset 1", Text: base64.RawURLEncoding.EncodeToString([]byte("x" + v))},
		redacttest.Example{Name: "hex of the Bearer header", Text: hex.EncodeToString([]byte("Bearer " + v))},
	)
	return ex
}

// pick returns the examples of those names, in that order; a name that
// is not there panics (a typo would test nothing).
func pick(ex []redacttest.Example, names ...string) []redacttest.Example {
	by := map[string]redacttest.Example{}
	for _, e := range ex {
		by[e.Name] = e
	}
	var out []redacttest.Example
	for _, n := range names {
		e, ok := by[n]
		if !ok {
			panic("no example " + n)
		}
		out = append(out, e)
	}
	return out
}
