// Command hostile is an MCP server that misbehaves on purpose, one way per
// mode, for measuring how mcp-eval bounds time and memory against it
// (bench/hostile.sh). It answers server/discover correctly, so that the era
// probe passes and the checks run, and misbehaves on every other request.
//
//	hostile -mode json200 -addr 127.0.0.1:8931     # Streamable HTTP
//	hostile -mode json200 -stdio                    # stdio
//
// Modes: json200 (a 200 MB JSON answer), sse200 (one 200 MB SSE event),
// sse-endless (small SSE notifications forever), gzip (a gzip bomb: 1 MB on
// the wire, 1 GiB decompressed), trickle (one byte a second), headers
// (headers, then no body), hang (no answer at all), pages-endless (a
// tools/list whose every page brings new tools and a new cursor, 40 ms a
// page), charlen (every answer but discovery a JSON-RPC error that quotes
// the request's Authorization header after accented text, its
// Content-Length counted in characters, not bytes: the bytes past it reach
// the client after the response), the slow modes of slow.go and
// many-tools and many-pages (many.go). Over
// stdio: json200, hang, endless (an endless line), and slow.go's.
package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"strings"
	"time"
	"unicode/utf8"
)

const discover = `{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{},"prompts":{},"resources":{}},"serverInfo":{"name":"hostile","version":"1"},"ttlMs":0,"cacheScope":"public"}`

const big = 200 << 20

func main() {
	mode := flag.String("mode", "json200", "misbehaviour")
	addr := flag.String("addr", "127.0.0.1:8931", "listen address (HTTP)")
	stdio := flag.Bool("stdio", false, "serve stdio instead of HTTP")
	flag.Parse()
	if *stdio {
		serveStdio(*mode)
		return
	}
	var bomb []byte
	if *mode == "gzip" {
		bomb = gzipBomb()
	}
	http.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.Unmarshal(body, &req)
		if req.ID == nil {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		if req.Method == "server/discover" {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, req.ID, discover)
			return
		}
		if slowHTTP(*mode, w, r, req.ID) || manyHTTP(*mode, w, req.ID, req.Method, body) {
			return
		}
		flusher, _ := w.(http.Flusher)
		if *mode == "charlen" {
			charLength(w, req.ID, r.Header.Get("Authorization"))
			return
		}
		if *mode == "pages-endless" {
			endlessPage(w, req.ID, req.Method, body)
			return
		}
		switch *mode {
		case "json200":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"tools":[],"x":"`, req.ID)
			writeFill(w, big)
			io.WriteString(w, `"}}`)
		case "sse200":
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, `data: {"jsonrpc":"2.0","id":%s,"result":{"tools":[],"x":"`, req.ID)
			writeFill(w, big)
			io.WriteString(w, "\"}}\n\n")
		case "sse-endless":
			w.Header().Set("Content-Type", "text/event-stream")
			ev := []byte(`data: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"tick"}}` + "\n\n")
			chunk := bytes.Repeat(ev, 256)
			for r.Context().Err() == nil {
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		case "gzip":
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Encoding", "gzip")
			w.Write(bomb)
		case "trickle":
			w.Header().Set("Content-Type", "application/json")
			msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"tools":[]}}`, req.ID)
			for i := 0; i < len(msg) && r.Context().Err() == nil; i++ {
				w.Write([]byte{msg[i]})
				if flusher != nil {
					flusher.Flush()
				}
				time.Sleep(time.Second)
			}
		case "headers":
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusOK)
			if flusher != nil {
				flusher.Flush()
			}
			<-r.Context().Done()
		case "hang":
			<-r.Context().Done()
		default:
			http.Error(w, "unknown mode", http.StatusInternalServerError)
		}
	})
	if *mode == "charlen" {
		// A model provider's endpoint (OPENAI_BASE_URL=http://ADDR/v1) that
		// frames its answers the same way.
		http.HandleFunc("/v1/", func(w http.ResponseWriter, r *http.Request) {
			charLength(w, json.RawMessage("null"), r.Header.Get("Authorization"))
		})
	}
	log.Fatal(http.ListenAndServe(*addr, nil))
}

// endlessPage answers tools/list with ten new tools and a new cursor on
// every page, 40 ms a page (each in time, and no cursor or page repeats),
// and everything else with -32601 at once.
func endlessPage(w http.ResponseWriter, id json.RawMessage, method string, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	if method != "tools/list" {
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"Method not found"}}`, id)
		return
	}
	var p struct {
		Params struct {
			Cursor string `json:"cursor"`
		} `json:"params"`
	}
	_ = json.Unmarshal(body, &p)
	start := 0
	fmt.Sscanf(p.Params.Cursor, "page-%d", &start)
	time.Sleep(40 * time.Millisecond)
	var tools []string
	for i := start; i < start+10; i++ {
		tools = append(tools, fmt.Sprintf(`{"name":"tool_%d","description":"Tool number %d of a list without end.","inputSchema":{"type":"object"}}`, i, i))
	}
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"resultType":"complete","ttlMs":0,"cacheScope":"public","tools":[%s],"nextCursor":"page-%d"}}`,
		id, strings.Join(tools, ","), start+10)
}

// charLength writes an answer whose Content-Length counts characters, as a
// server that measures a string instead of its UTF-8 encoding does: the
// client reads that many bytes, and the rest (the quoted header) follows
// the response on the connection (RFC 9112 §6.3: the body ends after
// Content-Length octets).
func charLength(w http.ResponseWriter, id json.RawMessage, auth string) {
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"méthode inconnue — %s — reçu: %s"}}`,
		id, strings.Repeat("é", 2*len(auth)), auth)
	conn, buf, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return
	}
	defer conn.Close()
	fmt.Fprintf(buf, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", utf8.RuneCountInString(body), body)
	buf.Flush()
	time.Sleep(2 * time.Second) // the connection stays open, idle, as a keep-alive one
}

func writeFill(w io.Writer, n int) {
	chunk := []byte(strings.Repeat("z", 64<<10))
	for n > 0 {
		k := min(n, len(chunk))
		if _, err := w.Write(chunk[:k]); err != nil {
			return
		}
		n -= k
	}
}

func gzipBomb() []byte {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	zw.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{"x":"`))
	zeros := make([]byte, 1<<20)
	for i := range zeros {
		zeros[i] = 'z'
	}
	for i := 0; i < 1024; i++ {
		zw.Write(zeros)
	}
	zw.Write([]byte(`"}}`))
	zw.Close()
	return buf.Bytes()
}

func serveStdio(mode string) {
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	out := bufio.NewWriterSize(os.Stdout, 1<<20)
	for {
		line, err := in.ReadBytes('\n')
		if err != nil {
			return
		}
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(line, &req) != nil || req.ID == nil {
			continue
		}
		if req.Method == "server/discover" {
			fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":%s}`+"\n", req.ID, discover)
			out.Flush()
			continue
		}
		if slowStdio(mode, out, req.ID) {
			return
		}
		switch mode {
		case "json200":
			fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":{"tools":[],"x":"`, req.ID)
			writeFill(out, big)
			io.WriteString(out, "\"}}\n")
			out.Flush()
		case "endless":
			for {
				writeFill(out, 1<<30)
			}
		case "hang":
		}
	}
}
