package mcptest

import "strings"

// skills/frontmatter: the entry's description is not the one SKILL.md's
// frontmatter holds (skills/list and skills/get alike: a curated
// description). SEP-2640 §Frontmatter: "The frontmatter object MUST be
// identical in content to the frontmatter of the SKILL.md it describes."
func init() {
	define(answerDefect{
		Name: "skills/frontmatter",
		Alter: func(c *call, o *outcome) {
			if entry := skillAnswered(c, o); entry != nil {
				entry["frontmatter"].(map[string]any)["description"] = "Forecasts."
			}
		},
		Probe: func(rpc RPC) bool {
			entry := listedSkill(rpc)
			fm, _ := entry["frontmatter"].(map[string]any)
			desc, _ := fm["description"].(string)
			if entry == nil {
				return false
			}
			res, _ := rpc("resources/read", map[string]any{"uri": skillMDURI})
			contents, _ := res["contents"].([]any)
			if len(contents) == 0 {
				return false // unreadable: skills/file-digest's
			}
			c, _ := contents[0].(map[string]any)
			text, _ := c["text"].(string)
			return !strings.Contains(text, "\ndescription: "+desc+"\n")
		},
	})
}
