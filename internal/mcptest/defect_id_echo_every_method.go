package mcptest

import "encoding/json"

// jsonrpc/id-echo-every-method: the answers of prompts/list and
// resources/templates/list carry the request's integer id as a string (7
// as "7"), every other method's the id as sent. basic/index.mdx,
// Responses: a response "MUST include the same ID as the request it
// corresponds to"; JSON-RPC 2.0 §5: "It MUST be the same as the value of
// the id member in the Request Object". jsonrpc/id-echo-integer asks its
// own vehicle (server/discover or tools/list), which still answers right;
// the checks that read these two listings through the client fail too,
// since the client refuses an answer under another id.
func init() {
	define(answerDefect{
		Name: "jsonrpc/id-echo-every-method",
		Alter: func(c *call, o *outcome) {
			if c.msg.method == "prompts/list" || c.msg.method == "resources/templates/list" {
				o.idAsString = true
			}
		},
		Expect: Expect{Also: []string{"caching/prompts-list", "caching/resources-templates-list", "pagination/cursor-round-trip",
			"resources/templates-list", "result-type/prompts-list", "result-type/resources-templates-list"}},
		MessageProbe: func(rpc MessageRPC) bool {
			for _, method := range []string{"server/discover", "tools/list", "prompts/list", "resources/list", "resources/templates/list"} {
				if m := rpc(41, method, nil); m == nil || m["id"] != json.Number("41") {
					return true
				}
			}
			return false
		},
	})
}
