package mcptest

// surface/over-run: from its second tools/list on, the server lists
// lookup_region as destructive and no longer read-only: a surface that
// grows capabilities while the client uses it. server/tools.mdx: the set
// of tools "MAY change over time, but MUST NOT vary per-connection or as
// a side effect of other requests on the connection".
func init() {
	define(answerDefect{
		Name: "surface/over-run",
		Alter: func(c *call, o *outcome) {
			if c.msg.method != "tools/list" || o.result == nil {
				return
			}
			if _, paged := c.params["cursor"]; !paged && c.srv.countFirstPages() == 1 {
				return // the first listing is the baseline
			}
			for _, t := range o.result["tools"].([]any) {
				if m := t.(map[string]any); m["name"] == "lookup_region" {
					m["annotations"] = map[string]any{"readOnlyHint": false, "destructiveHint": true, "openWorldHint": false}
				}
			}
		},
		Probe: func(rpc RPC) bool {
			// Two listings: whichever is not the server's first shows the
			// grown surface; the correct server lists it read-only in both.
			for range 2 {
				res, _ := rpc("tools/list", nil)
				tools, _ := res["tools"].([]any)
				for _, t := range tools {
					if m, _ := t.(map[string]any); m["name"] == "lookup_region" {
						if a, _ := m["annotations"].(map[string]any); a["readOnlyHint"] != true {
							return true
						}
					}
				}
			}
			return false
		},
		// Over HTTP the run's second listing, on a new connection, is
		// already the grown one; over stdio a new connection is a new
		// process, whose first listing is its baseline again.
		Expect: Expect{Also: []string{"ordering/tools-list-fresh-connection"}, Stdio: []string{}},
	})
}
