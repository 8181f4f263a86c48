package mcptest

// apps/resource-exists: the view show_forecast_view links is listed but
// resources/read answers it as not found. apps.mdx §Resource Discovery:
// "Resource MUST exist on the server".
func init() {
	define(answerDefect{
		Name: "apps/resource-exists",
		Alter: func(c *call, o *outcome) {
			if c.msg.method == "resources/read" && o.result != nil && string(c.params["uri"]) == `"`+appViewURI+`"` {
				*o = invalidParams("resource not found: "+appViewURI, map[string]any{"uri": appViewURI})
			}
		},
		Probe: func(rpc RPC) bool {
			uri, seen := appToolURI(rpc)
			if !seen || !isUIURI(uri) {
				return false
			}
			res, _ := rpc("resources/read", map[string]any{"uri": uri})
			return res == nil
		},
	})
}
