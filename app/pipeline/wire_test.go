package pipeline

import (
	"strings"
	"testing"

	"github.com/mcp-eval/mcp-eval/conformance"
	"github.com/mcp-eval/mcp-eval/engine/wire"
	"github.com/mcp-eval/mcp-eval/mcp"
	"github.com/mcp-eval/mcp-eval/report"
)

// TestWireRejudgedAfterEveryLayer: jsonrpc/wire-schema passed when Layer 0
// ended; a message a later layer received breaks the schema, and the
// report's verdict is the one over the whole run.
func TestWireRejudgedAfterEveryLayer(t *testing.T) {
	rec := wire.NewRecorder()
	rec.SetRevision(mcp.LatestVersion)
	res := &conformance.Result{Checks: []report.Check{conformance.WireCheck(rec)}}
	if res.Checks[0].Status != report.StatusPass {
		t.Fatalf("before: %+v", res.Checks[0])
	}
	m, err := mcp.ParseMessage([]byte(`{"jsonrpc":"2.0","id":9,"result":{"resultType":"complete","content":[{"type":"text"}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	rec.MessageReceived(&mcp.Outgoing{Method: "tools/call", Body: []byte(`{"params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`)}, m)
	p := &RunPlan{wire: rec}
	p.rejudgeWire(res)
	if c := res.Checks[0]; c.Status != report.StatusFail || !strings.Contains(c.Message, "tools/call /result/content/0") {
		t.Errorf("after: %s %s", c.Status, c.Message)
	}
}
