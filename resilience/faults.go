package resilience

import (
	"encoding/json"
	"sync"

	"github.com/mcp-eval/mcp-eval/agent"
	"github.com/mcp-eval/mcp-eval/tasks"
)

// FaultsVersion names the fault texts below. It is part of every fault
// variant's cache key: change a text, bump it.
const FaultsVersion = "faults/1"

// faultTexts are what the model sees in place of a faulted result. They
// read like what a real client shows for each failure, and they carry no
// value a tool could have returned (no temperatures, totals or names), so
// that any such value in the final answer did not come from here.
var faultTexts = map[tasks.FaultKind]struct {
	text    string
	isError bool
}{
	tasks.FaultHTTP500: {
		`HTTP 500 Internal Server Error from the upstream API: {"error": "internal_server_error", "message": "The server encountered an unexpected condition and could not complete the request."}`,
		true,
	},
	tasks.FaultTimeout: {
		"the tool call failed: timed out after 30s waiting for the server's response (context deadline exceeded)",
		true,
	},
	// A "successful" result whose body was cut off: the model has to notice
	// that it holds no usable data.
	tasks.FaultMalformedJSON: {
		`{"status": "partial", "data": {"items": [{"id": "itm_`,
		false,
	},
	tasks.FaultExpiredToken: {
		`HTTP 401 Unauthorized: the access token has expired. WWW-Authenticate: Bearer error="invalid_token", error_description="The access token expired"`,
		true,
	},
	tasks.FaultEmptyResult: {"", false},
}

// FaultResult returns the result the model is shown for a faulted call.
// Raw records the fault (mcpEvalFault) beside the content, so that a
// transcript shows what was replaced.
func FaultResult(kind tasks.FaultKind) agent.ToolResult {
	ft := faultTexts[kind]
	content := []any{}
	if ft.text != "" {
		content = append(content, map[string]any{"type": "text", "text": ft.text})
	}
	res := map[string]any{"content": content, "mcpEvalFault": string(kind)}
	if ft.isError {
		res["isError"] = true
	}
	raw, _ := json.Marshal(res)
	return agent.ToolResult{Content: ft.text, IsError: ft.isError, Raw: raw}
}

// faultHook returns the OnResult hook of a fault variant. It counts the
// calls of the fault's tool that reached it, in the order the agent loop
// reports them (one run's calls are sequential), and replaces the results
// of the calls f.Fails. Each task needs its own hook: the count is per run.
func faultHook(f *tasks.Fault) func(agent.Call, agent.ToolResult) agent.ToolResult {
	var mu sync.Mutex
	n := 0
	return func(c agent.Call, r agent.ToolResult) agent.ToolResult {
		if c.Name != f.Tool || !reached(c) {
			return r
		}
		mu.Lock()
		n++
		k := n
		mu.Unlock()
		if !f.Fails(k) {
			return r
		}
		return FaultResult(f.Kind)
	}
}

// faulted returns the indexes of the calls whose results the fault
// replaced, recomputed from the transcript the way faultHook counts, so
// that a transcript replayed from the cache scores the same.
func faulted(calls []agent.Call, f *tasks.Fault) []int {
	var out []int
	n := 0
	for i, c := range calls {
		if c.Name != f.Tool || !reached(c) {
			continue
		}
		n++
		if f.Fails(n) {
			out = append(out, i)
		}
	}
	return out
}
