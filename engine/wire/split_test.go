package wire

import (
	"reflect"
	"strings"
	"testing"
)

// A big list result validated item by item (validateSplit) gets exactly
// the violations it gets validated whole: every corpus message and a list
// of tools wrong in many ways, both ways.
func TestSplitAgrees(t *testing.T) {
	s, err := For("2026-07-28")
	if err != nil {
		t.Fatal(err)
	}
	tools := []string{
		`{"name":"ok","inputSchema":{"type":"object"}}`,
		`{"inputSchema":{"type":"object"}}`,
		`{"name":7,"inputSchema":{"type":"object"}}`,
		`{"name":"no-schema"}`,
		`{"name":"s","inputSchema":{"type":"string"}}`,
		`{"name":"a","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":"yes"}}`,
		`{"name":"i","inputSchema":{"type":"object"},"icons":[{"src":3}]}`,
		`42`,
		`null`,
		`[ {"name":"x"} ]`,
		` {"name":"sp\"a,ce]","description":"[{,}]","inputSchema":{"type":"object"}} `,
	}
	type msg struct{ answering, raw string }
	msgs := []msg{
		{"tools/list", `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","ttlMs":0,"cacheScope":"public","tools":[` + strings.Join(tools, ",") + `]}}`},
		{"tools/list", `{"jsonrpc":"2.0","id":1,"result":{"tools":[` + strings.Join(tools, ",") + `],"nextCursor":5}}`},
		{"tools/list", `{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}`},
		{"tools/list", `{"jsonrpc":"2.0","id":1,"result":{"tools":{"name":"x"}}}`},
		{"tools/list", `{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","tools":[1]}}`},
		{"tools/list", `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"m"}}`},
		{"prompts/list", `{"jsonrpc":"2.0","id":1,"result":{"prompts":[{"name":"p"},{"name":1},{}]}}`},
		{"resources/list", `{"jsonrpc":"2.0","id":1,"result":{"resources":[{"uri":"a:b","name":"n"},{"uri":5}]}}`},
		{"resources/templates/list", `{"jsonrpc":"2.0","id":1,"result":{"resourceTemplates":[{"uriTemplate":"a:{b}","name":"n"},{"name":"n"}]}}`},
	}
	for _, m := range msgs[:2] {
		if out, ok := s.validateSplit(m.answering, []byte(m.raw)); !ok || len(out) < 8 {
			t.Fatalf("validateSplit(%s) = %d violations, %v: want the list split and its bad tools found", m.raw, len(out), ok)
		}
	}
	for _, c := range corpus(t) {
		msgs = append(msgs, msg{c.Answering, string(c.Message)})
	}
	defer func(n int) { splitBytes = n }(splitBytes)
	for _, m := range msgs {
		splitBytes = 1 << 62
		whole, werr := s.Validate(m.answering, []byte(m.raw))
		splitBytes = 0
		split, serr := s.Validate(m.answering, []byte(m.raw))
		if (werr != nil) != (serr != nil) || !reflect.DeepEqual(whole, split) {
			t.Errorf("%s %s:\nwhole %+v (%v)\nsplit %+v (%v)", m.answering, m.raw, whole, werr, split, serr)
		}
	}
}
