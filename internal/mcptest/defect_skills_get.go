package mcptest

import "reflect"

// skills/get: skills/get answers the skill with another digest for
// references/regions.md than skills/list lists. SEP-2640 §Retrieval via
// skills/get: "The skill object is a skill entry, identical in shape and
// meaning to an entry of skills/list".
func init() {
	define(answerDefect{
		Name: "skills/get",
		Alter: func(c *call, o *outcome) {
			if c.msg.method != "skills/get" {
				return
			}
			if entry := skillAnswered(c, o); entry != nil {
				files := entry["resources"].([]any)
				files[1].(map[string]any)["digest"] = skillDigest("# Regions\n\nSpringfield.\n")
			}
		},
		Probe: func(rpc RPC) bool {
			entry := listedSkill(rpc)
			if entry == nil {
				return false
			}
			res, _ := rpc("skills/get", map[string]any{"uri": skillMDURI})
			got, _ := res["skill"].(map[string]any)
			return !reflect.DeepEqual(entry, got)
		},
	})
}
