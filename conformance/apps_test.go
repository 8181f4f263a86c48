package conformance

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
)

// TestHTMLDocument: a document begins with its DOCTYPE, in any case, after
// an optional BOM, comments and whitespace (HTML Standard §13.1).
func TestHTMLDocument(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{"<!DOCTYPE html><html></html>", true},
		{"<!doctype HTML>\n<title>x</title>", true},
		{"\ufeff  <!-- built 2026 -->\n<!DOCTYPE html>", true},
		{"<html><body>no doctype</body></html>", false},
		{"<!-- unterminated <!DOCTYPE html>", false},
		{"<!DOCTYPE svg>", false},
		{"", false},
		{"Springfield: 21 °C", false},
	} {
		if got := htmlDocument([]byte(tc.in)); got != tc.want {
			t.Errorf("htmlDocument(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

// TestAppContent: the content item of the URI read is judged (its mimeType,
// text or base64 blob, the document), and each fault is named.
func TestAppContent(t *testing.T) {
	const uri = "ui://x/view.html"
	doc := "<!DOCTYPE html><p>hi</p>"
	item := func(m map[string]any) json.RawMessage {
		b, _ := json.Marshal([]any{m})
		return b
	}
	for _, tc := range []struct {
		name     string
		contents json.RawMessage
		want     string
	}{
		{"text", item(map[string]any{"uri": uri, "mimeType": appsMIME, "text": doc}), ""},
		{"blob", item(map[string]any{"uri": uri, "mimeType": appsMIME, "blob": base64.StdEncoding.EncodeToString([]byte(doc))}), ""},
		{"plain html", item(map[string]any{"uri": uri, "mimeType": "text/html", "text": doc}), `mimeType "text/html"`},
		{"bad blob", item(map[string]any{"uri": uri, "mimeType": appsMIME, "blob": "not base64!"}), "not base64"},
		{"no content", item(map[string]any{"uri": uri, "mimeType": appsMIME}), "neither text nor blob"},
		{"fragment", item(map[string]any{"uri": uri, "mimeType": appsMIME, "text": "<div>hi</div>"}), "<!DOCTYPE html>"},
		{"empty", json.RawMessage(`[]`), "no contents"},
	} {
		got := appContent(uri, tc.contents)
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
