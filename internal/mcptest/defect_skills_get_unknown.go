package mcptest

import (
	"encoding/json"
	"net/http"
	"strconv"
)

// skills/get-unknown: skills/get of a URI that is no skill answers -32002,
// the legacy resource-not-found code. SEP-2640 §Retrieval via skills/get:
// "If the URI does not identify a skill the server serves, the server
// MUST return error -32602 (Invalid params)".
func init() {
	define(answerDefect{
		Name: "skills/get-unknown",
		Alter: func(c *call, o *outcome) {
			if c.msg.method == "skills/get" && o.err != nil && o.err.Code == codeInvalidParams && string(c.params["uri"]) != `"`+skillMDURI+`"` {
				*o = fail(http.StatusOK, codeResourceNotFound, "Resource not found", nil)
			}
		},
		Probe: func(rpc RPC) bool {
			if listedSkill(rpc) == nil {
				return false
			}
			res, rerr := rpc("skills/get", map[string]any{"uri": "skill://no-such-skill/SKILL.md"})
			return res != nil || rerr["code"] != json.Number(strconv.Itoa(codeInvalidParams))
		},
	})
}
