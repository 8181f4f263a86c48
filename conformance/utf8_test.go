package conformance

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcp-eval/mcp-eval/internal/mcptest"
	"github.com/mcp-eval/mcp-eval/report"
)

// TestInvalidUTF8NeverReachesTheReport: a server whose tool answers hold a
// byte that is not UTF-8 fails jsonrpc/valid-utf8 with the bytes quoted
// as escapes, and the evidence of another failing check that quotes the
// same answer is valid UTF-8 (U+FFFD in its place) and says so (before the fix,
// the raw byte was copied into report.json, which strict parsers refuse).
func TestInvalidUTF8NeverReachesTheReport(t *testing.T) {
	for _, transport := range []string{"http", "stdio"} {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			// result-type/tools-call fails too, quoting the answer.
			res, _ := evaluate(t, transport, mcptest.DefectInvalidUTF8+",result-type/tools-call", false, Options{})
			c := byID(res)[mcptest.DefectInvalidUTF8]
			if c.Status != report.StatusFail || !strings.Contains(string(c.Evidence), `caf\\xe9`) {
				t.Errorf("%s: %s %q, evidence %s", c.ID, c.Status, c.Message, c.Evidence)
			}
			b, err := json.Marshal(res.Checks)
			if err != nil {
				t.Fatal(err)
			}
			if !utf8.Valid(b) {
				t.Error("the checks' JSON is not valid UTF-8")
			}
			rt := byID(res)["result-type/tools-call"]
			if rt.Status != report.StatusFail || !strings.Contains(string(rt.Evidence), "caf\uFFFD") || !strings.Contains(string(rt.Evidence), "invalidUTF8") {
				t.Errorf("result-type/tools-call: %s, evidence %s; want the answer with U+FFFD and the note", rt.Status, rt.Evidence)
			}
		})
	}
}
