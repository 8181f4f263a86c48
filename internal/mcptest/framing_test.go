package mcptest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"testing"
)

func init() {
	probes[DefectDuplicateName] = func(h *harness) bool {
		r := h.rpc(1, "tools/call", map[string]any{"name": "get_forecast", "arguments": map[string]any{}}, nil)
		return hasDuplicateName(r.raw)
	}
	probes[DefectShortBody] = func(h *harness) bool {
		p := withMeta(nil)
		req, err := http.NewRequest(http.MethodPost, h.url+"/mcp", bytes.NewReader(body(1, "tools/list", p)))
		if err != nil {
			h.t.Fatal(err)
		}
		req.Header = headers("tools/list", p)
		req.Header.Set("Authorization", "Bearer "+h.srv.issue(h.url+"/mcp", AuthScope, 3600e9))
		resp, err := h.hc.Do(req)
		if err != nil {
			h.t.Fatal(err)
		}
		defer resp.Body.Close()
		_, err = io.ReadAll(resp.Body)
		return errors.Is(err, io.ErrUnexpectedEOF)
	}
}

// hasDuplicateName reports whether some object in the JSON text b gives a
// name twice, reading it with encoding/json's tokens.
func hasDuplicateName(b []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(b))
	type frame struct {
		obj   bool
		names map[string]bool
		key   bool // the next string token is a name
	}
	var st []*frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		var top *frame
		if len(st) > 0 {
			top = st[len(st)-1]
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{', '[':
				if top != nil && top.obj {
					top.key = true
				}
				st = append(st, &frame{obj: v == '{', names: map[string]bool{}, key: v == '{'})
			default:
				st = st[:len(st)-1]
			}
			continue
		case string:
			if top != nil && top.obj && top.key {
				if top.names[v] {
					return true
				}
				top.names[v] = true
				top.key = false
				continue
			}
		}
		if top != nil && top.obj {
			top.key = true
		}
	}
}

func TestHasDuplicateName(t *testing.T) {
	for in, want := range map[string]bool{
		`{"a":1,"b":{"a":2}}`:            false,
		`{"a":{"b":1,"b":1}}`:            true,
		`{"a":"a","b":["a","a"],"c":1}`:  false,
		`[{"x":1},{"x":1,"y":{},"x":2}]`: true,
	} {
		if got := hasDuplicateName([]byte(in)); got != want {
			t.Errorf("hasDuplicateName(%s) = %v", in, got)
		}
	}
}
