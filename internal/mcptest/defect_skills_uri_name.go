package mcptest

// skills/uri-name: the entry names the skill "forecast" while its path
// ends in forecast-guide (skills/list and skills/get alike). SEP-2640
// §Resource Mapping: "The final segment of <skill-path> MUST equal the
// skill's name as declared in its SKILL.md frontmatter." The entry's
// frontmatter is then not the SKILL.md's either: skills/frontmatter fails
// with it.
func init() {
	define(answerDefect{
		Name: "skills/uri-name",
		Alter: func(c *call, o *outcome) {
			if entry := skillAnswered(c, o); entry != nil {
				entry["frontmatter"].(map[string]any)["name"] = "forecast"
			}
		},
		Probe: func(rpc RPC) bool {
			entry := listedSkill(rpc)
			fm, _ := entry["frontmatter"].(map[string]any)
			return entry != nil && fm["name"] != "forecast-guide"
		},
		Expect: Expect{Also: []string{"skills/frontmatter"}},
	})
}
