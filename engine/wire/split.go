package wire

import (
	"strconv"

	"github.com/mcp-eval/mcp-eval/internal/jsonscan"
)

// splitBytes is the size from which a list result (tools/list and its
// kin) is validated item by item: decoded whole for the validator, one
// page of 100 000 small tools (9 MB) held 73 MB of maps at once, most of
// a run's peak memory. Below it, a message is decoded whole, as always; a
// variable for the tests, which hold the two ways to the same verdicts.
var splitBytes = 4 << 20

// listItems names, for each list result, its list member and the
// definition of one item of it.
var listItems = map[string]struct{ member, item string }{
	"ListToolsResult":             {"tools", "Tool"},
	"ListPromptsResult":           {"prompts", "Prompt"},
	"ListResourcesResult":         {"resources", "Resource"},
	"ListResourceTemplatesResult": {"resourceTemplates", "ResourceTemplate"},
}

// validateSplit validates a big list result as Validate does, with the
// message's list member emptied and then each of its items on its own
// against the item's definition, each decoded only while it is checked.
// ok is false when raw is not such a message; the caller then validates it
// whole.
func (s *Schema) validateSplit(answering string, raw []byte) (out []Violation, ok bool) {
	li, known := listItems[ResultDefs[answering]]
	if !known || s.defs[li.item] == nil {
		return nil, false
	}
	members, valid := jsonscan.ValidMembers(raw, nil)
	if !valid {
		return nil, false
	}
	result := -1
	for i, m := range members {
		if m.Parent == -1 && string(raw[m.NameStart:m.NameEnd]) == `"result"` {
			result = i // the last one, as a decoder keeps
		}
	}
	list := -1
	for i, m := range members {
		if result >= 0 && m.Parent == result && string(raw[m.NameStart:m.NameEnd]) == strconv.Quote(li.member) {
			list = i
		}
	}
	if list < 0 || raw[members[list].ValueStart] != '[' {
		return nil, false
	}
	arr := raw[members[list].ValueStart:members[list].ValueEnd]
	rest := make([]byte, 0, len(raw)-len(arr)+2)
	rest = append(append(append(rest, raw[:members[list].ValueStart]...), "[]"...), raw[members[list].ValueEnd:]...)
	v, decoded := jsonscan.Decode(rest)
	if !decoded {
		return nil, false
	}
	whole, member, payload := s.pick(answering, v)
	if whole == "" || member != "result" || payload != ResultDefs[answering] {
		// Not judged as that list's result (an error, input_required):
		// whole, as it would be.
		return nil, false
	}
	out = s.check(whole, whole, "", v)
	if obj, _ := v.(map[string]any); obj != nil {
		if pv, has := obj[member]; has {
			out = append(out, s.check(payload, payload, "/"+member, pv)...)
		}
	}
	prefix := "/" + member + "/" + li.member + "/"
	eachElement(arr, func(i int, el []byte) {
		ev, _ := jsonscan.Decode(el)
		out = append(out, s.check(payload, li.item, prefix+strconv.Itoa(i), ev)...)
	})
	return dedupe(out), true
}

// eachElement calls f with each element of the JSON array arr, which is
// known to be valid JSON, without decoding it.
func eachElement(arr []byte, f func(i int, el []byte)) {
	n, depth := 0, 0
	start := jsonscan.SkipSpace(arr, 1)
	emit := func(end int) {
		el := jsonscan.TrimSpace(arr[start:end])
		if len(el) > 0 {
			f(n, el)
			n++
		}
	}
	for i := start; i < len(arr); i++ {
		switch arr[i] {
		case '"':
			i = jsonscan.StringClose(arr, i)
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				emit(i)
				return
			}
			depth--
		case ',':
			if depth == 0 {
				emit(i)
				start = i + 1
			}
		}
	}
}
