package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
)

// TestWriteJSONStreamedIsTheSame: a surface big enough to be written tool
// by tool gives report.json byte for byte as one indented marshal does,
// each piece passes the mask, and a mask that rewrites the placeholder
// falls back to the whole document.
func TestWriteJSONStreamedIsTheSame(t *testing.T) {
	for _, n := range []int{0, 1, streamedTools - 1, streamedTools, 3 * streamedTools} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			r := &Report{SchemaVersion: 1, Server: Server{ServerInfo: json.RawMessage(`{"name":"s","tools":"[]"}`)}}
			for i := range n {
				r.Surface.Tools = append(r.Surface.Tools, SurfaceItem{
					Name: fmt.Sprintf("tool-%05d", i), DescriptionSHA256: Digest{byte(i), byte(i >> 8), 1},
					SurfaceDefinition: &SurfaceDefinition{Description: "says \"hello\" <b>", InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"}}}`), Defined: true},
				})
			}
			want, err := json.MarshalIndent(normalized(r), "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, '\n')
			var got bytes.Buffer
			pieces := 0
			if err := WriteJSONMasked(&got, r, func(b []byte) []byte { pieces++; return b }); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Fatalf("streamed report.json differs from the whole marshal (%d vs %d bytes)", got.Len(), len(want))
			}
			if n >= streamedTools && pieces != n+1 {
				t.Errorf("mask saw %d pieces, want the document and each of %d tools", pieces, n)
			}
			if !json.Valid(got.Bytes()) {
				t.Error("not valid JSON")
			}
			// A mask that rewrites the placeholder: the report is written
			// whole, and still the same.
			var whole bytes.Buffer
			rewrite := func(b []byte) []byte {
				return bytes.ReplaceAll(b, []byte(`mcp-eval: surface tools`), []byte(`mcp-eval: surface tool`))
			}
			if err := WriteJSONMasked(&whole, r, rewrite); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(whole.Bytes(), want) {
				t.Errorf("fallback report.json differs from the whole marshal")
			}
		})
	}
}

// normalized shares the surface's tools rather than copying them (nothing
// it does sorts or changes them; at 100 000 tools a copy was 20 MB while
// report.json was written), and still gives an empty array for none.
func TestNormalizedSharesTheSurface(t *testing.T) {
	r := &Report{Surface: Surface{Tools: []SurfaceItem{{Name: "b"}, {Name: "a"}}}}
	n := normalized(r)
	if &n.Surface.Tools[0] != &r.Surface.Tools[0] {
		t.Error("normalized copied the surface's tools")
	}
	if r.Surface.Tools[0].Name != "b" {
		t.Error("normalized changed the caller's surface")
	}
	if n := normalized(&Report{}); n.Surface.Tools == nil || len(n.Surface.Tools) != 0 {
		t.Errorf("no tools gave %#v, want an empty array", n.Surface.Tools)
	}
}
