package mcptest

// skills/skillmd-mime: SKILL.md reads as text/plain. SEP-2640 §Resource
// Metadata: for each SKILL.md resource, "mimeType SHOULD be
// text/markdown".
func init() {
	define(answerDefect{
		Name: "skills/skillmd-mime",
		Alter: func(c *call, o *outcome) {
			if c.msg.method == "resources/read" && o.result != nil && string(c.params["uri"]) == `"`+skillMDURI+`"` {
				o.result["contents"].([]any)[0].(map[string]any)["mimeType"] = "text/plain"
			}
		},
		Probe: func(rpc RPC) bool {
			if listedSkill(rpc) == nil {
				return false
			}
			res, _ := rpc("resources/read", map[string]any{"uri": skillMDURI})
			contents, _ := res["contents"].([]any)
			if len(contents) == 0 {
				return false
			}
			c, _ := contents[0].(map[string]any)
			return c["mimeType"] != "text/markdown"
		},
	})
}
