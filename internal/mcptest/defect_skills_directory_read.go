package mcptest

// skills/directory-read: resources/directory/read of a URI that is no
// directory answers an empty listing. SEP-2640 §resources/directory/read:
// "If the URI does not exist, or exists but is not a directory resource,
// the server MUST return error -32602 (Invalid params)."
func init() {
	define(answerDefect{
		Name: "skills/directory-read",
		Alter: func(c *call, o *outcome) {
			if c.msg.method == "resources/directory/read" && o.err != nil && o.err.Code == codeInvalidParams {
				*o = outcome{result: map[string]any{"resources": []any{}, "resultType": "complete"}}
			}
		},
		Probe: func(rpc RPC) bool {
			if listedSkill(rpc) == nil {
				return false
			}
			res, _ := rpc("resources/directory/read", map[string]any{"uri": skillRoot + "/no-such-directory"})
			return res != nil
		},
	})
}
