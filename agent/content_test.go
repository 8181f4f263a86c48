package agent

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestContentText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		blocks []string
		want   string
	}{
		{"text blocks joined", []string{`{"type":"text","text":"a"}`, `{"type":"text","text":"b"}`}, "a\nb"},
		{"image", []string{`{"type":"image","mimeType":"image/png","data":"AAECAw=="}`}, "[image/png, 4 bytes]"},
		{"audio without mime type", []string{`{"type":"audio","data":"AAEC"}`}, "[audio, 3 bytes]"},
		{"resource link", []string{`{"type":"resource_link","uri":"file:///a.txt","name":"a.txt"}`}, "[resource link file:///a.txt a.txt]"},
		{"embedded text resource", []string{`{"type":"resource","resource":{"uri":"x://r","text":"body"}}`}, "[resource x://r]\nbody"},
		{"embedded blob", []string{`{"type":"resource","resource":{"uri":"x://b","mimeType":"application/pdf","blob":"AAAA"}}`}, "[resource x://b, application/pdf, 3 bytes]"},
		{"unknown type", []string{`{"type":"hologram"}`}, "[hologram content block]"},
		{"not an object", []string{`42`}, "[unreadable content block]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var blocks []json.RawMessage
			for _, b := range tt.blocks {
				blocks = append(blocks, json.RawMessage(b))
			}
			if got := contentText(blocks); got != tt.want {
				t.Errorf("got %q; want %q", got, tt.want)
			}
		})
	}
}

func TestCapText(t *testing.T) {
	t.Parallel()
	if got := capText("short"); got != "short" {
		t.Errorf("short text changed: %q", got)
	}
	// A multi-byte rune straddles the limit: the cut must not split it.
	long := strings.Repeat("a", MaxResultBytes-1) + "é" + strings.Repeat("b", 100)
	got := capText(long)
	if !utf8.ValidString(got) || !strings.Contains(got, "[result truncated by mcp-eval:") || len(got) > MaxResultBytes+100 {
		t.Errorf("capped text: valid %v, len %d, tail %q", utf8.ValidString(got), len(got), got[len(got)-80:])
	}
}

func TestStructuredOnlyResult(t *testing.T) {
	t.Parallel()
	got := stubResult(json.RawMessage(`{"content":[],"structuredContent":{"n":1}}`))
	if got.Content != `{"n":1}` {
		t.Errorf("got %q; want the structured content as text", got.Content)
	}
}

// Renamed reports whether any name has an alias other than itself.
func (n *ToolNames) Renamed() bool { return n.renamed }
