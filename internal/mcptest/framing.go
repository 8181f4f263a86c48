package mcptest

import (
	"bytes"
	"net/http"
	"strconv"
)

// The framing defects (conformance checks_framing.go): answers whose bytes
// are off below the level of their meaning.
const (
	// DefectDuplicateName: in every tools/call answer the first content
	// block gives its "type" member twice, both "text" (RFC 8259 §4: the
	// names within an object SHOULD be unique). The values agree, so no
	// reading of the answer breaks the schema: only the check of names
	// fails.
	DefectDuplicateName = "jsonrpc/unique-member-names"
	// DefectShortBody: over HTTP every tools/list answer declares a
	// Content-Length one byte longer than its body, and the connection is
	// closed after the body (RFC 9112 §6.3: an incomplete message).
	DefectShortBody = "http/message-framing"
)

// withDuplicateName applies DefectDuplicateName to the encoded answer of a
// request for method.
func (s *Server) withDuplicateName(method string, answer []byte) []byte {
	if method != "tools/call" || !s.has(DefectDuplicateName) {
		return answer
	}
	at := []byte(`"type":"text"`)
	return bytes.Replace(answer, at, append(append([]byte(nil), at...), append([]byte{','}, at...)...), 1)
}

// writeShortBody writes body as a JSON answer whose Content-Length counts
// one byte more than it has; net/http's server closes the connection when
// the handler returns short of it.
func (s *Server) writeShortBody(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)+1))
	w.WriteHeader(status)
	w.Write(body)
}

func init() {
	expect(DefectShortBody, Expect{HTTPOnly: "Content-Length is HTTP framing"})
}
