package resilience

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/mcp-eval/mcp-eval/engine/check"
	"github.com/mcp-eval/mcp-eval/internal/clip"
	"github.com/mcp-eval/mcp-eval/mcp"
	"github.com/mcp-eval/mcp-eval/report"
)

// A model reads every tool's description, and the descriptions of its
// parameters, as instructions from a trusted source; a user approving the
// server rarely reads them. Tool poisoning puts instructions for the model
// there: use another tool, read a file first, keep it from the user. The
// rules below flag text that addresses the model rather than describes the
// tool. They are deterministic and err on the side of reporting: every rule
// but one is a warning for a person to read.

// poisonRule is one rule of Descriptions.
type poisonRule struct {
	name  string // the id is "resilience/description-" + name
	title string
	level report.Level
	// match returns the matches of the rule in text, as byte ranges.
	match func(text string, f *scanField) [][2]int
}

// scanField is one text a rule reads: a field of one tool.
type scanField struct {
	tool  string
	field string // "description", "title" or a JSON pointer into a schema
	text  string
	// others are the names of the server's other tools.
	others []string
}

// finding is one match of a description rule, as shown in evidence.
type finding struct {
	Tool  string `json:"tool"`
	Field string `json:"field"`
	// Match is the matched text, quoted with invisible and non-printable
	// characters escaped (\u200b), so that the evidence shows what the
	// model sees.
	Match string `json:"match"`
	// Context is the match with some text either side, escaped the same way.
	Context string `json:"context"`
	// Decoded is the ASCII text hidden in Unicode tag characters, if any.
	Decoded string `json:"decoded,omitempty"`
}

func phrase(patterns ...string) func(string, *scanField) [][2]int {
	res := make([]*regexp.Regexp, len(patterns))
	for i, p := range patterns {
		res[i] = regexp.MustCompile(p)
	}
	return func(text string, _ *scanField) [][2]int {
		var out [][2]int
		for _, re := range res {
			for _, m := range re.FindAllStringIndex(text, -1) {
				out = append(out, [2]int{m[0], m[1]})
			}
		}
		return out
	}
}

// poisonRules are the rules, in id order.
var poisonRules = []poisonRule{
	{name: "before-using", level: report.LevelShould,
		title: `no description tells the model what to do "before using" a tool`,
		match: phrase(`(?i)\b(before|prior\s+to)\s+(using|calling|invoking|running|executing)\b`)},
	{name: "hidden-unicode",
		// MUST, unlike the phrase rules: these characters change nothing a
		// person sees, so their only effect in a description is that the
		// reviewer and the model read different texts — Trojan Source
		// (CVE-2021-42574) for bidirectional controls, "ASCII smuggling"
		// for tag characters. The joiners and marks with a real use (ZWNJ
		// and ZWJ between letters or in emoji, LRM/RLM in right-to-left
		// text) are exempt there, so a match is never a false positive
		// worth keeping; a hard failure stops the release instead of
		// listing it among warnings.
		level: report.LevelMust,
		title: "no description hides text in invisible or bidirectional Unicode",
		match: matchHidden},
	{name: "html-comment", level: report.LevelShould,
		title: "no description hides text in an HTML comment (invisible when rendered, read by the model)",
		match: phrase(`(?s)<!--.*?(-->|$)`)},
	{name: "ignore-instructions", level: report.LevelShould,
		title: `no description tells the model to "ignore previous instructions"`,
		match: phrase(`(?i)\b(ignore|disregard|forget|override)\s+(all\s+|any\s+)?(of\s+)?(the\s+|your\s+|my\s+)?(previous|prior|above|earlier|preceding|other|all|any|system|original)\s+(instructions?|prompts?|rules|guidelines|directions|directives|messages|context)\b`)},
	{name: "instruction-tags", level: report.LevelShould,
		title: "no description carries <IMPORTANT>-style tags or chat-template markers addressed to the model",
		match: phrase(
			`(?i)<\s*/?\s*(important|system|instructions?|secret|hidden|admin|critical|urgent|assistant|sys|system[-_ ]?prompt)\s*>`,
			`(?i)\[\s*/?\s*(INST|SYSTEM|IMPORTANT)\s*\]`,
			`<<\s*/?SYS\s*>>`,
			`<\|[a-z_]{2,20}\|>`)},
	{name: "other-tools", level: report.LevelShould,
		title: "no description steers the model to other tools by name",
		match: matchOtherTools},
	{name: "secrecy", level: report.LevelShould,
		title: "no description asks the model to keep something from the user",
		match: phrase(
			`(?i)\b(do\s+not|don'?t|never|must\s+not|should\s+not)\s+(tell|inform|notify|alert|warn|ask)\s+(the\s+)?(user|human|customer|operator)s?\b`,
			`(?i)\b(do\s+not|don'?t|never|must\s+not|should\s+not)\s+(mention|reveal|disclose|show|say|explain|report)\b[^.!?\n]{0,40}?\bto\s+(the\s+)?(user|human|customer|operator)s?\b`,
			`(?i)\bwithout\s+(telling|informing|notifying|alerting|asking)\s+(the\s+)?(user|human|customer)s?\b`,
			`(?i)\b(keep|keeping)\s+(this|it|these|that)\s+(a\s+)?(secret|hidden|confidential|private)\b`,
			`(?i)\b(the\s+)?user\s+(must|should)\s+(not|never)\s+(know|see|find\s+out|be\s+told)\b`,
			`(?i)\bhide\s+(this|it|these|that)\s+from\s+(the\s+)?user`,
			`(?i)\bsecretly\b`)},
}

// Descriptions flags tool descriptions — the tool's description and title
// and every description inside its input and output schemas — that carry
// instructions aimed at the model (tool poisoning). It returns one check
// per rule, sorted by id, each failing with every match as evidence (tool,
// field and the matched text, escaped). It needs no model and no server.
func Descriptions(tools []mcp.Tool) []report.Check {
	var fields []*scanField
	names := make([]string, 0, len(tools))
	for _, t := range tools {
		names = append(names, t.Name)
	}
	for _, t := range tools {
		others := make([]string, 0, len(names))
		for _, n := range names {
			if n != t.Name {
				others = append(others, n)
			}
		}
		add := func(field, text string) {
			if text != "" {
				fields = append(fields, &scanField{tool: t.Name, field: field, text: text, others: others})
			}
		}
		add("description", t.Description)
		add("title", t.Title)
		if t.Annotations != nil {
			add("annotations/title", t.Annotations.Title)
		}
		for _, d := range schemaDescriptions(t.InputSchema, "inputSchema") {
			add(d[0], d[1])
		}
		for _, d := range schemaDescriptions(t.OutputSchema, "outputSchema") {
			add(d[0], d[1])
		}
	}
	checks := make([]report.Check, 0, len(poisonRules))
	for _, r := range poisonRules {
		checks = append(checks, r.check(fields, len(tools)))
	}
	return checks
}

// maxFindings bounds the findings kept as evidence per rule.
const maxFindings = 20

// poisonSpecRef is the spec section every description rule enforces.
var poisonSpecRef = specRef("server/tools") + "#security-considerations"

func (r *poisonRule) id() string { return "resilience/description-" + r.name }

func (r *poisonRule) check(fields []*scanField, ntools int) report.Check {
	rc := report.Check{
		ID: r.id(), Layer: report.LayerResilience, Group: "resilience",
		Level: r.level, Hard: r.level == report.LevelMust, Title: r.title,
		SpecRef: poisonSpecRef,
	}
	if ntools == 0 {
		rc.Status, rc.Message = report.StatusSkip, "the server lists no tools"
		return rc
	}
	rc.Runs = 1
	var found []finding
	total := 0
	for _, f := range fields {
		for _, m := range mergeRanges(r.match(f.text, f)) {
			total++
			if len(found) < maxFindings {
				found = append(found, newFinding(f, m))
			}
		}
	}
	if total == 0 {
		rc.Status, rc.Passed = report.StatusPass, 1
		rc.Info = fmt.Sprintf("%d fields of %d tools read", len(fields), ntools)
		return rc
	}
	rc.Status = report.StatusFail
	first := found[0]
	rc.Message = fmt.Sprintf("tool %s, %s: %s", first.Tool, first.Field, first.Match)
	if total > 1 {
		rc.Message = fmt.Sprintf("%d matches; first: %s", total, rc.Message)
	}
	ev := map[string]any{"findings": found}
	if total > len(found) {
		ev["total"] = total
	}
	rc.Evidence = check.JSON(ev)
	return rc
}

// mergeRanges sorts ranges and merges overlapping ones, so that two
// patterns matching the same words count once.
func mergeRanges(rs [][2]int) [][2]int {
	if len(rs) < 2 {
		return rs
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i][0] < rs[j][0] })
	out := [][2]int{rs[0]}
	for _, r := range rs[1:] {
		last := &out[len(out)-1]
		if r[0] < last[1] {
			last[1] = max(last[1], r[1])
			continue
		}
		out = append(out, r)
	}
	return out
}

func newFinding(f *scanField, m [2]int) finding {
	match := f.text[m[0]:m[1]]
	lo, hi := max(m[0]-40, 0), min(m[1]+40, len(f.text))
	for lo > 0 && f.text[lo]&0xC0 == 0x80 {
		lo--
	}
	for hi < len(f.text) && f.text[hi]&0xC0 == 0x80 {
		hi++
	}
	ctx := f.text[lo:hi]
	if lo > 0 {
		ctx = "…" + ctx
	}
	if hi < len(f.text) {
		ctx += "…"
	}
	return finding{Tool: f.tool, Field: f.field, Match: escapeText(clip.Bytes(match, 200)),
		Context: escapeText(clip.Bytes(ctx, 400)), Decoded: decodeTags(match)}
}

// escapeText quotes s as a Go string literal, escaping every character that
// is not graphic (format characters such as U+200B and U+202E, tag
// characters, controls) so that evidence shows what is hidden.
func escapeText(s string) string { return strconv.QuoteToGraphic(s) }

// decodeTags returns the ASCII text that Unicode tag characters
// (U+E0020–U+E007E, the shifted copy of printable ASCII) spell in s.
func decodeTags(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= 0xE0020 && r <= 0xE007E {
			b.WriteRune(r - 0xE0000)
		}
	}
	return b.String()
}

// schemaDescriptions returns [pointer, text] for every "description" string
// in a JSON Schema, in document order of a sorted walk. Only schema
// positions are read: a member named "description" inside "properties" is
// a property, not a description.
func schemaDescriptions(raw json.RawMessage, base string) [][2]string {
	if len(raw) == 0 {
		return nil
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return nil
	}
	var out [][2]string
	var walk func(v any, ptr string, depth int)
	walk = func(v any, ptr string, depth int) {
		if depth > 64 || len(out) > 10_000 {
			return
		}
		switch x := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				sub := ptr + "/" + pointerEscape(k)
				if k == "description" {
					if s, ok := x[k].(string); ok {
						out = append(out, [2]string{sub, s})
						continue
					}
				}
				if schemaMaps[k] {
					// A map from names to schemas: step over the names.
					if m, ok := x[k].(map[string]any); ok {
						names := make([]string, 0, len(m))
						for n := range m {
							names = append(names, n)
						}
						sort.Strings(names)
						for _, n := range names {
							walk(m[n], sub+"/"+pointerEscape(n), depth+1)
						}
						continue
					}
				}
				if dataKeys[k] {
					continue
				}
				walk(x[k], sub, depth+1)
			}
		case []any:
			for i, e := range x {
				walk(e, fmt.Sprintf("%s/%d", ptr, i), depth+1)
			}
		}
	}
	walk(v, base, 0)
	return out
}

// schemaMaps are the keywords whose value maps names to schemas.
var schemaMaps = map[string]bool{
	"properties": true, "patternProperties": true, "$defs": true, "definitions": true, "dependentSchemas": true,
}

// dataKeys hold instance data, not schemas: a "description" in them is
// data. (The model still reads them, but they are not descriptions.)
var dataKeys = map[string]bool{"const": true, "enum": true, "default": true, "examples": true}

func pointerEscape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// matchHidden finds invisible and bidirectional characters: zero-width
// space, joiners and direction marks (U+200B–U+200F), word joiner and
// invisible operators (U+2060–U+2064), the byte-order mark (U+FEFF),
// bidirectional embeddings, overrides and isolates (U+202A–U+202E,
// U+2066–U+2069), and the tag block (U+E0000–U+E007F). A run of them is
// one match. ZWNJ and ZWJ between two letters or marks (Persian, Indic
// scripts) or two symbols (emoji sequences), and LRM/RLM in text that has
// right-to-left letters, are their ordinary use and are not flagged.
func matchHidden(text string, _ *scanField) [][2]int {
	rtl := hasRTL(text)
	runes := []rune(text)
	offsets := make([]int, len(runes)+1)
	o := 0
	for i, r := range runes {
		offsets[i] = o
		o += len(string(r))
	}
	offsets[len(runes)] = o
	var out [][2]int
	start := -1
	for i, r := range runes {
		bad := hiddenRune(r) && !legitJoiner(runes, i, rtl)
		switch {
		case bad && start < 0:
			start = i
		case !bad && start >= 0:
			out = append(out, [2]int{offsets[start], offsets[i]})
			start = -1
		}
	}
	if start >= 0 {
		out = append(out, [2]int{offsets[start], offsets[len(runes)]})
	}
	// A subdivision flag (black flag, tag letters, cancel tag) is the one
	// ordinary use of tag characters.
	kept := out[:0]
	for _, m := range out {
		if !flagSequence(text, m) {
			kept = append(kept, m)
		}
	}
	return kept
}

func flagSequence(text string, m [2]int) bool {
	if !strings.HasSuffix(text[:m[0]], "\U0001F3F4") || !strings.HasSuffix(text[m[0]:m[1]], "\U000E007F") {
		return false
	}
	for _, r := range text[m[0]:m[1]] {
		if r < 0xE0020 || r > 0xE007F {
			return false
		}
	}
	return true
}

func hiddenRune(r rune) bool {
	switch {
	case r >= 0x200B && r <= 0x200F,
		r >= 0x202A && r <= 0x202E,
		r >= 0x2060 && r <= 0x2064,
		r >= 0x2066 && r <= 0x2069,
		r == 0xFEFF,
		r >= 0xE0000 && r <= 0xE007F:
		return true
	}
	return false
}

func legitJoiner(runes []rune, i int, rtl bool) bool {
	r := runes[i]
	switch r {
	case 0x200C, 0x200D: // ZWNJ, ZWJ
		if i == 0 || i == len(runes)-1 {
			return false
		}
		a, b := runes[i-1], runes[i+1]
		letter := func(c rune) bool { return unicode.IsLetter(c) || unicode.IsMark(c) }
		symbol := func(c rune) bool { return unicode.Is(unicode.So, c) || unicode.Is(unicode.Sk, c) || c == 0xFE0F }
		return (letter(a) && letter(b)) || (symbol(a) && symbol(b))
	case 0x200E, 0x200F: // LRM, RLM
		return rtl
	}
	return false
}

func hasRTL(s string) bool {
	for _, r := range s {
		if unicode.In(r, unicode.Hebrew, unicode.Arabic, unicode.Syriac, unicode.Thaana, unicode.Nko) {
			return true
		}
	}
	return false
}

// toolNameRe is what a tool name looks like in prose: the spec's name
// characters, starting with a letter.
var toolNameRe = regexp.MustCompile(`[A-Za-z][A-Za-z0-9_.\-]*`)

// callTheTool finds "use the X tool", "call `X`" and the like: steering
// towards a named tool, which may belong to another server. The name must
// be quoted or followed by "tool", so that "use snake_case" is prose.
var callTheTool = regexp.MustCompile("(?i)\\b(call|use|invoke|run|execute|trigger|prefer|instead\\s+of)\\s+(the\\s+)?([`'\"]?)([A-Za-z][A-Za-z0-9_.\\-]*)([`'\"]?)(\\s+tool\\b)?")

// matchOtherTools flags references to other tools: a name of another tool
// of the server where it stands as a word, and "call X" for a name that
// looks like a tool's. To keep prose apart from names, a name counts only
// when it is distinctive — it has a character other than letters (get_user,
// v2.search) or an inner capital (getUser) — or stands in quotes or
// backticks; "search" in running text is a word, `search` a name.
func matchOtherTools(text string, f *scanField) [][2]int {
	var out [][2]int
	others := map[string]bool{}
	for _, n := range f.others {
		if n != f.tool {
			others[n] = true
		}
	}
	for _, m := range toolNameRe.FindAllStringIndex(text, -1) {
		word := strings.TrimRight(text[m[0]:m[1]], ".-")
		end := m[0] + len(word)
		if !others[word] {
			continue
		}
		if distinctiveName(word) || quoted(text, m[0], end) {
			out = append(out, [2]int{m[0], end})
		}
	}
	for _, m := range callTheTool.FindAllStringSubmatchIndex(text, -1) {
		name := strings.TrimRight(text[m[8]:m[9]], ".-")
		open, shut := text[m[6]:m[7]], text[m[10]:m[11]]
		isQuoted := open != "" && open == shut
		hasTool := m[12] >= 0
		if name == f.tool || !distinctiveName(name) || !(isQuoted || hasTool) {
			continue
		}
		out = append(out, [2]int{m[0], m[1]})
	}
	return out
}

func distinctiveName(s string) bool {
	for i, r := range s {
		if !unicode.IsLetter(r) {
			return true
		}
		if i > 0 && unicode.IsUpper(r) {
			return true
		}
	}
	return false
}

func quoted(text string, lo, hi int) bool {
	if lo == 0 || hi >= len(text) {
		return false
	}
	a, b := text[lo-1], text[hi]
	return (a == '`' && b == '`') || (a == '"' && b == '"') || (a == '\'' && b == '\'')
}
