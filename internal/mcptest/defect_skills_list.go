package mcptest

// skills/list: the skill's entry carries "resources": "static", neither
// the array of its files nor "dynamic" (skills/get answers the same entry).
// SEP-2640 §Resources: "an entry with no resources at all, or with any
// value other than an array or "dynamic", is invalid".
func init() {
	define(answerDefect{
		Name: "skills/list",
		Alter: func(c *call, o *outcome) {
			if entry := skillAnswered(c, o); entry != nil {
				entry["resources"] = "static"
			}
		},
		Probe: func(rpc RPC) bool {
			entry := listedSkill(rpc)
			if entry == nil {
				return false
			}
			switch r := entry["resources"].(type) {
			case []any:
				return false
			case string:
				return r != "dynamic"
			}
			return true
		},
	})
}

// skillAnswered returns the fixture skill's entry in a skills/list or
// skills/get result o answers to c, nil when there is none.
func skillAnswered(c *call, o *outcome) map[string]any {
	if o.result == nil {
		return nil
	}
	switch c.msg.method {
	case "skills/list":
		skills, _ := o.result["skills"].([]any)
		for _, s := range skills {
			if m, _ := s.(map[string]any); m["uri"] == skillMDURI {
				return m
			}
		}
	case "skills/get":
		m, _ := o.result["skill"].(map[string]any)
		return m
	}
	return nil
}

// listedSkill returns the fixture skill's entry as skills/list answers
// it, nil when the server lists none (it serves no skills: the checks
// skip).
func listedSkill(rpc RPC) map[string]any {
	res, _ := rpc("skills/list", map[string]any{})
	skills, _ := res["skills"].([]any)
	for _, s := range skills {
		if m, _ := s.(map[string]any); m["uri"] == skillMDURI {
			return m
		}
	}
	return nil
}
