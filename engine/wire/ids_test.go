package wire

import (
	"encoding/json"
	"testing"

	"github.com/mcp-eval/mcp-eval/mcp"
)

// TestIDEcho: an answer whose id has the request id's text but another
// type (7 as "7") is a mismatch of its method, counted once per method;
// the same value written otherwise ("\u00fc" for "ü") is no mismatch; an
// answer under another id altogether (an orphan) and an error without an
// id are not this tally's.
func TestIDEcho(t *testing.T) {
	r := NewRecorder()
	r.SetRevision(mcp.LatestVersion)
	out := func(method, id string) *mcp.Outgoing { return &mcp.Outgoing{Method: method, ID: json.RawMessage(id)} }
	r.MessageReceived(out("tools/list", `7`), msg(t, `{"jsonrpc":"2.0","id":7,"result":{}}`))
	r.MessageReceived(out("tools/list", `"a-ü"`), msg(t, `{"jsonrpc":"2.0","id":"a-\u00fc","result":{}}`))
	r.MessageReceived(out("prompts/list", `8`), msg(t, `{"jsonrpc":"2.0","id":"8","result":{}}`))
	r.MessageReceived(out("prompts/list", `9`), msg(t, `{"jsonrpc":"2.0","id":"9","result":{}}`))
	r.MessageReceived(out("resources/list", `"10"`), msg(t, `{"jsonrpc":"2.0","id":10,"result":{}}`))
	r.MessageReceived(out("resources/read", `11`), msg(t, `{"jsonrpc":"2.0","id":12,"result":{}}`))
	r.MessageReceived(out("ping", `13`), msg(t, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}`))
	r.MessageReceived(nil, msg(t, `{"jsonrpc":"2.0","method":"notifications/message","params":{}}`))
	got := r.Summary().IDs
	if got.Answers != 5 {
		t.Errorf("answers %d, want 5 (the orphan and the id-less error are not counted)", got.Answers)
	}
	if len(got.Methods) != 3 || got.Methods[0] != "prompts/list" {
		t.Errorf("methods %v", got.Methods)
	}
	want := []IDMismatch{{Method: "prompts/list", Sent: "8", Got: `"8"`, Count: 2}, {Method: "resources/list", Sent: `"10"`, Got: "10", Count: 1}}
	if len(got.Mismatches) != len(want) {
		t.Fatalf("mismatches %+v, want %+v", got.Mismatches, want)
	}
	for i := range want {
		if got.Mismatches[i] != want[i] {
			t.Errorf("mismatch %d: %+v, want %+v", i, got.Mismatches[i], want[i])
		}
	}
}
