package mcp

import (
	"encoding/base64"
	"strings"
)

// EncodeHeaderValue encodes a value for Mcp-Name or Mcp-Param-* headers
// (streamable-http.mdx §Value encoding): plain visible ASCII is sent as is;
// anything else — non-ASCII, control characters, leading or trailing
// white space, or a value that itself looks like the sentinel — is sent as
// =?base64?{base64(utf-8)}?=.
func EncodeHeaderValue(v string) string {
	if needsBase64(v) {
		return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(v)) + "?="
	}
	return v
}

// DecodeHeaderValue reverses EncodeHeaderValue; ok is false for a sentinel
// whose payload is not valid base64.
func DecodeHeaderValue(v string) (string, bool) {
	if !strings.HasPrefix(v, "=?base64?") || !strings.HasSuffix(v, "?=") || len(v) < len("=?base64??=") {
		return v, true
	}
	b, err := base64.StdEncoding.DecodeString(v[len("=?base64?") : len(v)-2])
	if err != nil {
		return v, false
	}
	return string(b), true
}

func needsBase64(v string) bool {
	if v == "" {
		return false
	}
	if v[0] == ' ' || v[0] == '\t' || v[len(v)-1] == ' ' || v[len(v)-1] == '\t' {
		return true
	}
	if strings.HasPrefix(v, "=?base64?") && strings.HasSuffix(v, "?=") {
		return true
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c < 0x20 || c > 0x7e {
			return true
		}
	}
	return false
}
