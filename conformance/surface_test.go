package conformance

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcp-eval/mcp-eval/mcp"
)

func tool(t *testing.T, raw string) mcp.Tool {
	t.Helper()
	var tl mcp.Tool
	if err := json.Unmarshal([]byte(raw), &tl); err != nil {
		t.Fatal(err)
	}
	tl.Raw = json.RawMessage(raw)
	return tl
}

// TestDiffSurface: the same tools in another order or key order are no
// difference; a tool that drops readOnlyHint, and a new tool a client
// must treat as destructive (destructiveHint defaults to true), are
// capability growth, named beside the plain changes.
func TestDiffSurface(t *testing.T) {
	ro := tool(t, `{"name":"read","description":"d","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}}`)
	roKeys := tool(t, `{"annotations":{"readOnlyHint":true},"inputSchema":{"type":"object"},"description":"d","name":"read"}`)
	flipped := tool(t, `{"name":"read","description":"d","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":false}}`)
	other := tool(t, `{"name":"other","description":"d","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}}`)
	wipe := tool(t, `{"name":"wipe","description":"d","inputSchema":{"type":"object"}}`)
	safeWrite := tool(t, `{"name":"note","description":"d","inputSchema":{"type":"object"},"annotations":{"destructiveHint":false}}`)

	if d := diffSurface([]mcp.Tool{ro, other}, []mcp.Tool{other, roKeys}); d != nil {
		t.Errorf("same surface reordered: %s", d.summary())
	}
	d := diffSurface([]mcp.Tool{ro, other}, []mcp.Tool{flipped, wipe, safeWrite})
	if d == nil {
		t.Fatal("no difference found")
	}
	got := d.summary()
	for _, want := range []string{"capabilities grown: read: now destructive, read: readOnlyHint no longer true, wipe: a new destructive tool", "missing: other", "added: note, wipe", "defined differently: read"} {
		if !strings.Contains(got, want) {
			t.Errorf("summary %q lacks %q", got, want)
		}
	}
	if strings.Contains(got, "note: a new destructive") {
		t.Errorf("a tool with destructiveHint false is not destructive: %q", got)
	}
}
