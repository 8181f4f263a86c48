package mcptest

import (
	"encoding/json"
	"fmt"
	"strings"
)

// skills/limits: the skill holds 511 more files (archive/day-NNN.md),
// 513 in all, over the 512 every host must accept; the listing and
// skills/get list them and resources/read serves them as listed. SEP-2640
// §Limits: "Servers SHOULD NOT serve a skill that exceeds either limit".
func init() {
	const extra = 511
	archived := func(uri string) (string, bool) {
		var n int
		if _, err := fmt.Sscanf(strings.TrimPrefix(uri, skillRoot+"/archive/"), "day-%03d.md", &n); err != nil || n < 1 || n > extra || uri != archiveURI(n) {
			return "", false
		}
		return fmt.Sprintf("Day %d: sunny.\n", n), true
	}
	define(answerDefect{
		Name: "skills/limits",
		Alter: func(c *call, o *outcome) {
			if entry := skillAnswered(c, o); entry != nil {
				files := entry["resources"].([]any)
				for n := 1; n <= extra; n++ {
					text, _ := archived(archiveURI(n))
					files = append(files, map[string]any{"uri": archiveURI(n), "digest": skillDigest(text), "size": len(text)})
				}
				entry["resources"] = files
			}
			var uri string
			if c.msg.method == "resources/read" && o.err != nil && json.Unmarshal(c.params["uri"], &uri) == nil {
				if text, ok := archived(uri); ok {
					*o = outcome{result: map[string]any{"contents": []any{map[string]any{"uri": uri, "mimeType": "text/markdown", "text": text}}}}
					c.srv.decorate(c.msg.method, o.result)
				}
			}
		},
		Probe: func(rpc RPC) bool {
			entry := listedSkill(rpc)
			files, _ := entry["resources"].([]any)
			return len(files) > 512
		},
	})
}

// archiveURI is the URI of the skills/limits defect's n-th extra file.
func archiveURI(n int) string { return fmt.Sprintf("%s/archive/day-%03d.md", skillRoot, n) }
