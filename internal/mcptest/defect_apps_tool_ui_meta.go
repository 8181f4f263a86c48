package mcptest

// apps/tool-ui-meta: show_forecast_view links its view by an https URL.
// apps.mdx §UI Resource Format: a UI resource's URI "MUST use the `ui://`
// URI scheme to distinguish UI resources from other MCP resource types".
func init() {
	define(answerDefect{
		Name: "apps/tool-ui-meta",
		Alter: func(c *call, o *outcome) {
			if c.msg.method != "tools/list" || o.result == nil {
				return
			}
			for _, t := range o.result["tools"].([]any) {
				if m := t.(map[string]any); m["name"] == toolShowView {
					m["_meta"] = map[string]any{"ui": map[string]any{"resourceUri": "https://fixture.example/forecast-view.html"}}
				}
			}
		},
		Probe: func(rpc RPC) bool {
			// A server without the tool does not serve the extension: the
			// check skips there.
			uri, seen := appToolURI(rpc)
			return seen && !isUIURI(uri)
		},
	})
}

// isUIURI reports whether uri is of the ui:// scheme; the resource
// probes judge only those, as the checks read only those.
func isUIURI(uri string) bool { return len(uri) >= 5 && uri[:5] == "ui://" }

// appToolURI returns show_forecast_view's _meta.ui.resourceUri as the
// first tools/list pages list it ("" when absent) and whether it was seen.
func appToolURI(rpc RPC) (string, bool) {
	params := map[string]any{}
	for range 100 {
		res, _ := rpc("tools/list", params)
		tools, _ := res["tools"].([]any)
		for _, t := range tools {
			m, _ := t.(map[string]any)
			if m["name"] != toolShowView {
				continue
			}
			meta, _ := m["_meta"].(map[string]any)
			ui, _ := meta["ui"].(map[string]any)
			uri, _ := ui["resourceUri"].(string)
			return uri, true
		}
		next, ok := res["nextCursor"].(string)
		if !ok {
			break
		}
		params = map[string]any{"cursor": next}
	}
	return "", false
}
