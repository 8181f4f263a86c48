package mcptest

// apps/resource-content: the view reads as plain text/html, without the
// profile. apps.mdx §UI Resource Format, Content Requirements: "`mimeType`
// MUST be `text/html;profile=mcp-app`".
func init() {
	define(answerDefect{
		Name: "apps/resource-content",
		Alter: func(c *call, o *outcome) {
			if c.msg.method != "resources/read" || o.result == nil || string(c.params["uri"]) != `"`+appViewURI+`"` {
				return
			}
			for _, item := range o.result["contents"].([]any) {
				item.(map[string]any)["mimeType"] = "text/html"
			}
		},
		Probe: func(rpc RPC) bool {
			uri, seen := appToolURI(rpc)
			if !seen || !isUIURI(uri) {
				return false
			}
			res, _ := rpc("resources/read", map[string]any{"uri": uri})
			if res == nil {
				return false // unreadable: apps/resource-exists's
			}
			contents, _ := res["contents"].([]any)
			for _, item := range contents {
				if m, _ := item.(map[string]any); m["mimeType"] == appMIMEType {
					return false
				}
			}
			return true
		},
	})
}
