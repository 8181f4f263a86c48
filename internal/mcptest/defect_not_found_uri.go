package mcptest

// resources/not-found-uri: the -32602 for an unknown resource carries
// no data.uri. server/resources.mdx, Error Handling: servers MUST answer a
// resource that is not found with -32602 and SHOULD include the URI in the
// error's data (https://modelcontextprotocol.io/specification/2026-07-28/server/resources, Error Handling).
func init() {
	define(answerDefect{
		Name: "resources/not-found-uri",
		Alter: func(c *call, o *outcome) {
			if c.msg.method == "resources/read" && o.err != nil && o.err.Code == codeInvalidParams {
				o.err.Data = nil
			}
		},
		Probe: func(rpc RPC) bool {
			const uri = "fixture://docs/no-such-doc"
			_, err := rpc("resources/read", map[string]any{"uri": uri})
			data, _ := err["data"].(map[string]any)
			return err["code"] != nil && data["uri"] != uri
		},
	})
}
