package main

// Workarounds for places where go-sdk v1.8.0 answers a 2026-07-28 request
// differently from the specification. mcp-eval's conformance layer checks
// exactly these answers, and this example is what its quickstart runs, so
// the server fixes them at the transport edge instead of failing its own
// demo. Each workaround says which SDK behaviour it covers; delete it when a
// newer SDK gets that case right (the tests in main_test.go will show it).
//
//  1. A request whose _meta names a version the server does not know and
//     that sorts before 2026-07-28 (the spec's own example is "1900-01-01")
//     is treated by the SDK as a legacy request: over HTTP it gets a
//     plain-text 400, over stdio -32601. The spec wants -32022 with
//     data.supported and data.requested (basic/versioning).
//  2. Over stdio, a request without the _meta envelope before any
//     initialize gets -32601 (or, once any modern request has been seen on
//     the connection, is served as if the connection had been initialized).
//     A 2026-07-28 server must reject it with -32602 and must not carry
//     state from earlier requests on the connection (basic/index,
//     "Statelessness").
//  3. Over HTTP, an Mcp-Name header in the =?base64?…?= form is compared
//     without decoding it first, so a correct request gets -32020. The spec
//     requires servers to decode before comparing
//     (transports/streamable-http, "Value encoding").
//  4. Over stdio, when stdin reaches EOF the SDK closes the session at once
//     and drops the answers to requests still in flight, so
//     `echo '{…}' | weather-server` usually prints nothing. The stdio
//     shutdown sequence starts with the client closing stdin, and a client
//     that wrote its last request just before may still want the answer, so
//     the server finishes what it has read first (for at most drainTimeout).
//  5. Over stdio, a line that is not JSON makes the SDK's connection fail
//     and the server exit. JSON-RPC answers it with a parse error (-32700)
//     and carries on; mcp-eval's resilience/malformed-json probe (now the
//     check jsonrpc/malformed-json) found this.

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const (
	modernVersion = "2026-07-28"

	metaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	metaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"

	codeHeaderMismatch     = -32020
	codeUnsupportedVersion = -32022

	// maxInspectedBody bounds what the HTTP workaround reads to inspect a
	// request; it matches the SDK's default request limit.
	maxInspectedBody = mcp.DefaultMaxRequestBodyBytes
	// maxInspectedLine bounds the stdio lines the workaround decodes.
	// Longer lines are passed on unread: the requests it rewrites are small.
	maxInspectedLine = 1 << 20
	// drainTimeout bounds the wait for in-flight answers after stdin EOF; a
	// subscriptions/listen request, for one, never finishes on its own.
	drainTimeout = 5 * time.Second
)

// supportedVersions is what the server advertises in server/discover and in
// -32022 errors; the server does not narrow the SDK's list.
var supportedVersions = mcp.SupportedProtocolVersions()

// envelopeError returns the error a 2026-07-28 server owes req when the SDK
// would answer it wrongly (workarounds 1 and 2), or nil to let the SDK answer.
// sawInitialize says that the stdio client has started a legacy session, in
// which requests without _meta are normal.
func envelopeError(req *jsonrpc.Request, sawInitialize bool) *jsonrpc.Error {
	meta := requestMeta(req.Params)
	version, ok := meta[metaProtocolVersion].(string)
	if !ok {
		if sawInitialize || req.Method == "initialize" || req.Method == "ping" {
			// Legacy traffic: initialize starts a session, and the
			// 2025-11-25 lifecycle allows ping before it.
			return nil
		}
		return &jsonrpc.Error{
			Code:    jsonrpc.CodeInvalidParams,
			Message: fmt.Sprintf("missing or invalid _meta field %q", metaProtocolVersion),
		}
	}
	if version >= modernVersion || slices.Contains(supportedVersions, version) {
		return nil // the SDK handles these correctly
	}
	// The SDK checks clientCapabilities before the version for modern
	// requests; keep that order.
	if !hasCapabilities(meta) {
		return &jsonrpc.Error{
			Code:    jsonrpc.CodeInvalidParams,
			Message: fmt.Sprintf("missing or invalid _meta field %q", metaClientCapabilities),
		}
	}
	return unsupportedVersionError(version)
}

func unsupportedVersionError(requested string) *jsonrpc.Error {
	data, _ := json.Marshal(struct {
		Supported []string `json:"supported"`
		Requested string   `json:"requested"`
	}{supportedVersions, requested})
	return &jsonrpc.Error{Code: codeUnsupportedVersion, Message: "unsupported protocol version", Data: data}
}

// hasCapabilities reports whether meta carries the required client
// capabilities object ({} declares none).
func hasCapabilities(meta map[string]any) bool {
	_, ok := meta[metaClientCapabilities].(map[string]any)
	return ok
}

// requestMeta returns params._meta, or nil when there is none.
func requestMeta(params json.RawMessage) map[string]any {
	var p struct {
		Meta map[string]any `json:"_meta"`
	}
	if len(params) == 0 || json.Unmarshal(params, &p) != nil {
		return nil
	}
	return p.Meta
}

// decodeRequest returns the JSON-RPC request in data, or nil if data is
// anything else (a notification, response, batch or garbage), which the
// workarounds leave to the SDK.
func decodeRequest(data []byte) *jsonrpc.Request {
	msg, err := jsonrpc.DecodeMessage(data)
	if err != nil {
		return nil
	}
	req, ok := msg.(*jsonrpc.Request)
	if !ok || !req.IsCall() {
		return nil
	}
	return req
}

func encodeError(id jsonrpc.ID, e *jsonrpc.Error) []byte {
	data, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Error: e})
	if err != nil {
		// Only reachable through a bug in this file.
		panic(fmt.Sprintf("encode error response: %v", err))
	}
	return data
}

// parseErrorLine answers a stdio line that is not JSON (workaround 5).
const parseErrorLine = `{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error: the line is not JSON"}}` + "\n"

// newStdioTransport is mcp.StdioTransport with workarounds 1, 2, 4 and 5
// applied: requests are read from in line by line, the ones the SDK would
// answer wrongly are answered here, and the rest are passed to the SDK.
//
// The filtering goroutine ends when in reaches EOF (the client closed stdin,
// which the spec's stdio shutdown sequence starts with) and the answers in
// flight have been written, or when the SDK stops reading.
func newStdioTransport(in io.Reader, out io.Writer) mcp.Transport {
	w := &stdoutWriter{w: out, inFlight: newInFlight()}
	pr, pw := io.Pipe()
	go func() {
		err := filterLines(in, pw, w)
		if err == nil {
			w.inFlight.wait(drainTimeout)
		}
		pw.CloseWithError(err)
	}()
	return &mcp.IOTransport{Reader: pr, Writer: w}
}

// filterLines copies newline-delimited messages from in to sdk, answering on
// out the requests that envelopeError catches and recording the others in
// out.inFlight. It returns nil at EOF.
func filterLines(in io.Reader, sdk io.Writer, out *stdoutWriter) error {
	r := bufio.NewReaderSize(in, maxInspectedLine)
	sawInitialize := false
	for {
		line, err := r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// Too long to inspect: pass the whole line through.
			for errors.Is(err, bufio.ErrBufferFull) {
				if _, werr := sdk.Write(line); werr != nil {
					return werr
				}
				line, err = r.ReadSlice('\n')
			}
			if len(line) > 0 {
				if _, werr := sdk.Write(line); werr != nil {
					return werr
				}
			}
			if err != nil {
				return eofIsNil(err)
			}
			continue
		}
		if trimmed := bytes.TrimSpace(line); len(trimmed) > 0 && !json.Valid(trimmed) {
			// Workaround 5: answer with an id-less parse error (the id could
			// not be read) instead of handing the SDK a line it dies on.
			if _, werr := out.Write([]byte(parseErrorLine)); werr != nil {
				return werr
			}
			if err != nil {
				return eofIsNil(err)
			}
			continue
		}
		if len(line) > 0 {
			msg, _ := jsonrpc.DecodeMessage(bytes.TrimSpace(line))
			if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
				if e := envelopeError(req, sawInitialize); e != nil {
					if _, werr := out.Write(append(encodeError(req.ID, e), '\n')); werr != nil {
						return werr
					}
					if err != nil {
						return eofIsNil(err)
					}
					continue
				}
				if req.Method == "initialize" && requestMeta(req.Params)[metaProtocolVersion] == nil {
					sawInitialize = true
				}
				// Before passing it on, so that the answer cannot be
				// written first.
				out.inFlight.add(req.ID)
			} else if ok && req.Method == "notifications/cancelled" {
				// A cancelled request gets no answer; stop waiting for it.
				var p struct {
					RequestID any `json:"requestId"`
				}
				if json.Unmarshal(req.Params, &p) == nil {
					if id, err := jsonrpc.MakeID(p.RequestID); err == nil {
						out.inFlight.done(id)
					}
				}
			}
			if _, werr := sdk.Write(line); werr != nil {
				return werr
			}
		}
		if err != nil {
			return eofIsNil(err)
		}
	}
}

func eofIsNil(err error) error {
	if errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// stdoutWriter is the stdout side of the stdio transport. It serializes
// writes, so that the SDK's messages and the answers written by filterLines
// never interleave within a line (the SDK writes each message, newline
// included, in one Write call), and it marks requests answered.
type stdoutWriter struct {
	mu       sync.Mutex
	w        io.Writer
	inFlight *inFlight
}

func (s *stdoutWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	n, err := s.w.Write(p)
	s.mu.Unlock()
	if msg, derr := jsonrpc.DecodeMessage(bytes.TrimSpace(p)); derr == nil {
		if resp, ok := msg.(*jsonrpc.Response); ok {
			s.inFlight.done(resp.ID)
		}
	}
	return n, err
}

// Close does nothing: stdout stays open until the process exits.
func (s *stdoutWriter) Close() error { return nil }

// inFlight is the set of requests passed to the SDK and not yet answered.
type inFlight struct {
	mu      sync.Mutex
	ids     map[jsonrpc.ID]bool
	changed chan struct{} // receives a value after a request is answered
}

func newInFlight() *inFlight {
	return &inFlight{ids: map[jsonrpc.ID]bool{}, changed: make(chan struct{}, 1)}
}

func (f *inFlight) add(id jsonrpc.ID) {
	f.mu.Lock()
	f.ids[id] = true
	f.mu.Unlock()
}

func (f *inFlight) done(id jsonrpc.ID) {
	f.mu.Lock()
	delete(f.ids, id)
	f.mu.Unlock()
	select {
	case f.changed <- struct{}{}:
	default: // a wake-up is already pending
	}
}

// wait returns when no request is in flight or after timeout.
func (f *inFlight) wait(timeout time.Duration) {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		f.mu.Lock()
		n := len(f.ids)
		f.mu.Unlock()
		if n == 0 {
			return
		}
		select {
		case <-f.changed:
		case <-timer.C:
			return
		}
	}
}

// withHTTPWorkarounds applies workarounds 1 and 3 in front of the SDK's
// Streamable HTTP handler.
func withHTTPWorkarounds(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		if name := r.Header.Get("Mcp-Name"); strings.HasPrefix(name, "=?base64?") {
			if decoded, ok := decodeBase64Header(name); ok {
				r = r.Clone(r.Context())
				r.Header.Set("Mcp-Name", decoded)
			}
			// An undecodable value is left as it is, and the SDK rejects
			// it as a mismatch, which is the answer the spec asks for.
		}
		header := r.Header.Get("Mcp-Protocol-Version")
		if header == "" || header >= modernVersion || slices.Contains(supportedVersions, header) {
			next.ServeHTTP(w, r)
			return
		}
		// The SDK would answer with plain text here (workaround 1). Look
		// at the body: a legacy request keeps the SDK's answer, a request
		// with the 2026-07-28 envelope gets a JSON-RPC error.
		body, err := io.ReadAll(io.LimitReader(r.Body, maxInspectedBody+1))
		if err != nil {
			http.Error(w, "cannot read request body", http.StatusBadRequest)
			return
		}
		// Hand the SDK the whole body: what was read, then the rest.
		r.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(body), r.Body), r.Body}
		req := decodeRequest(body)
		if req == nil || len(body) > maxInspectedBody {
			next.ServeHTTP(w, r)
			return
		}
		meta := requestMeta(req.Params)
		version, ok := meta[metaProtocolVersion].(string)
		if !ok {
			next.ServeHTTP(w, r)
			return
		}
		// Same order as the SDK uses for modern versions: the envelope,
		// then the headers against the body, then the version itself.
		var e *jsonrpc.Error
		switch method := r.Header.Get("Mcp-Method"); {
		case !hasCapabilities(meta):
			e = &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
				Message: fmt.Sprintf("missing or invalid _meta field %q", metaClientCapabilities)}
		case version != header:
			e = &jsonrpc.Error{Code: codeHeaderMismatch,
				Message: fmt.Sprintf("header mismatch: Mcp-Protocol-Version header value %q does not match body value %q", header, version)}
		case method == "":
			e = &jsonrpc.Error{Code: codeHeaderMismatch, Message: "missing required Mcp-Method header"}
		case method != req.Method:
			e = &jsonrpc.Error{Code: codeHeaderMismatch,
				Message: fmt.Sprintf("header mismatch: Mcp-Method header value %q does not match body value %q", method, req.Method)}
		default:
			e = unsupportedVersionError(version)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		w.Write(encodeError(req.ID, e))
	})
}

// decodeBase64Header decodes a header value of the form =?base64?…?=.
func decodeBase64Header(v string) (string, bool) {
	s, ok := strings.CutPrefix(v, "=?base64?")
	if !ok {
		return "", false
	}
	s, ok = strings.CutSuffix(s, "?=")
	if !ok {
		return "", false
	}
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return "", false
	}
	return string(b), true
}
