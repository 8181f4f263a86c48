package mcptest

// apps/tool-text-fallback: show_forecast_view answers an empty content
// array to a client that did not declare the extension. apps.mdx §Server
// Behavior, Graceful Degradation: "Servers SHOULD provide text-only
// fallback behavior for all UI-enabled tools" and "Tools MUST return
// meaningful content array even when UI is available".
func init() {
	define(answerDefect{
		Name: "apps/tool-text-fallback",
		Alter: func(c *call, o *outcome) {
			if c.msg.method == "tools/call" && o.result != nil && string(c.params["name"]) == `"`+toolShowView+`"` && !declaresApps(c.caps) {
				o.result["content"] = []any{}
			}
		},
		Probe: func(rpc RPC) bool {
			// The probe's client declares no extension.
			if _, seen := appToolURI(rpc); !seen {
				return false
			}
			res, _ := rpc("tools/call", map[string]any{"name": toolShowView, "arguments": map[string]any{}})
			content, _ := res["content"].([]any)
			return len(content) == 0
		},
	})
}
