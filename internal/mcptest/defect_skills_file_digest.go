package mcptest

import (
	"encoding/json"
	"strconv"
)

// skills/file-digest: references/regions.md reads as other bytes than
// the listing's digest and size (a file edited after the listing was
// made). SEP-2640 §Resources: "Each entry MUST carry size: the length in
// bytes of the file's raw content — the same bytes the digest covers".
func init() {
	define(answerDefect{
		Name: "skills/file-digest",
		Alter: func(c *call, o *outcome) {
			if c.msg.method == "resources/read" && o.result != nil && string(c.params["uri"]) == `"`+skillRegionsURI+`"` {
				o.result["contents"].([]any)[0].(map[string]any)["text"] = skillRegions + "Capital City.\n"
			}
		},
		Probe: func(rpc RPC) bool {
			entry := listedSkill(rpc)
			files, _ := entry["resources"].([]any)
			for _, f := range files {
				m, _ := f.(map[string]any)
				uri, _ := m["uri"].(string)
				res, _ := rpc("resources/read", map[string]any{"uri": uri})
				contents, _ := res["contents"].([]any)
				if len(contents) == 0 {
					return true
				}
				c, _ := contents[0].(map[string]any)
				text, _ := c["text"].(string)
				if skillDigest(text) != m["digest"] || json.Number(strconv.Itoa(len(text))) != m["size"] {
					return true
				}
			}
			return false
		},
	})
}
