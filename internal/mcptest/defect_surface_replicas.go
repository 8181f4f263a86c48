package mcptest

import "strings"

// surface/replicas: each server instance words get_forecast's description
// with a token of its own (a replica that puts its host name in a
// description): two replicas behind one URL serve two tool surfaces.
// server/tools.mdx: the set of tools "MUST NOT vary per-connection"; a
// client routed to either replica must see one surface.
func init() {
	define(answerDefect{
		Name: "surface/replicas",
		Alter: func(c *call, o *outcome) {
			if c.msg.method != "tools/list" || o.result == nil {
				return
			}
			for _, t := range o.result["tools"].([]any) {
				if m := t.(map[string]any); m["name"] == "get_forecast" {
					m["description"] = m["description"].(string) + " Served by replica " + c.srv.instance() + "."
				}
			}
		},
		Probe: func(rpc RPC) bool {
			// A probe sees one server: the instance's token shows in the
			// description, where the correct server has none.
			res, _ := rpc("tools/list", nil)
			tools, _ := res["tools"].([]any)
			for _, t := range tools {
				m, _ := t.(map[string]any)
				if d, _ := m["description"].(string); m["name"] == "get_forecast" && len(d) > 0 && containsReplica(d) {
					return true
				}
			}
			return false
		},
	})
}

func containsReplica(s string) bool { return strings.Contains(s, "Served by replica ") }
