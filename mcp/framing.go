package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/mcp-eval/mcp-eval/internal/clip"
)

// AnomalyFraming is an HTTP answer whose body is not framed as its headers
// say: it ended before its Content-Length, or its chunked coding broke
// (RFC 9112 §6.3, https://www.rfc-editor.org/rfc/rfc9112#section-6.3: the
// recipient "MUST consider the message to be incomplete"). What arrived is
// still read and judged; the anomaly is the finding (http/message-framing).
const AnomalyFraming = "framing"

// framedBody passes a response body through and keeps the first error
// that says the body was cut short or mis-framed. net/http reports both
// after the bytes that did arrive: a body short of its Content-Length as
// io.ErrUnexpectedEOF, a broken chunked coding as io.ErrUnexpectedEOF (the
// connection closed inside a chunk) or as an error of its own chunked
// reader ("malformed chunked encoding", "invalid byte in chunk length",
// …), which has no exported sentinel.
type framedBody struct {
	r   io.Reader
	n   int64
	err error
}

func (f *framedBody) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	f.n += int64(n)
	if err != nil && err != io.EOF && f.err == nil && framingError(err) {
		f.err = err
	}
	return n, err
}

// framingError reports whether err, from reading a response body, is the
// server's framing rather than the client's deadline or cancel.
func framingError(err error) bool {
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return true
	}
	s := err.Error()
	return strings.Contains(s, "chunk") && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)
}

// noteFraming records an AnomalyFraming when reading the answer to out hit
// a framing error, unless the request's own deadline or cancel ended it
// (a closed connection then is the client's doing).
func (h *HTTP) noteFraming(ctx context.Context, out *Outgoing, resp *http.Response, f *framedBody, x *Exchange) {
	if f.err == nil || ctx.Err() != nil {
		return
	}
	var detail string
	switch {
	case resp.ContentLength >= 0 && len(resp.TransferEncoding) == 0:
		detail = fmt.Sprintf("the answer to %s ended after %d bytes of the %d its Content-Length declares", out.Method, f.n, resp.ContentLength)
	case len(resp.TransferEncoding) > 0:
		detail = fmt.Sprintf("the chunked body of the answer to %s is broken after %d bytes (%v)", out.Method, f.n, f.err)
	default:
		detail = fmt.Sprintf("the answer to %s ended early after %d bytes (%v)", out.Method, f.n, f.err)
	}
	h.record(Anomaly{Kind: AnomalyFraming, Detail: detail, Evidence: clip.Bytes(string(x.Body), 200)})
}
