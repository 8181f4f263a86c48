package initcmd

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"unicode"

	"github.com/mcp-eval/mcp-eval/conformance"
	"github.com/mcp-eval/mcp-eval/internal/schema"
	"github.com/mcp-eval/mcp-eval/mcp"
)

// draftCase is one case of the golden file init writes.
type draftCase struct {
	ID      string
	Comment string // above the case
	Prompt  string
	Tool    string         // expect_tool; "" for the negative case
	Args    map[string]any // expect_args; nil for none
	Forbid  []string       // forbid_tools
	// ArgsNote says why expect_args is left out.
	ArgsNote string
	// ask is the request for a model to draft the prompt ("" keeps
	// userPrompt's).
	ask string
}

// negativePrompt is the negative case's prompt without a model: general
// knowledge, which no server's tools should be needed for.
const negativePrompt = "What is the capital city of Australia?"

// draftCases are the cases for tools: one per tool with arguments that
// validate against its inputSchema, one negative case, and one per
// near-duplicate pair the lint flags, expecting the first tool and
// forbidding the second.
func draftCases(tools []mcp.Tool) []*draftCase {
	ids := map[string]bool{}
	id := func(base string) string {
		s := kebab(base)
		for n := 2; ids[s]; n++ {
			s = fmt.Sprintf("%s-%d", kebab(base), n)
		}
		ids[s] = true
		return s
	}
	var out []*draftCase
	byName := map[string]mcp.Tool{}
	for _, t := range tools {
		byName[t.Name] = t
		c := &draftCase{ID: id(t.Name), Tool: t.Name}
		c.Args, c.ArgsNote = exampleArgs(t)
		c.Prompt = userPrompt(t, c.Args)
		c.Comment = t.Name + ": " + firstSentence(t.Description)
		if t.Description == "" {
			c.Comment = t.Name + " (it has no description: a model can only guess what it is for)"
		}
		c.ask = fmt.Sprintf("Tool: %s\nDescription: %s\nArguments it should be called with: %s\n\n"+
			"Write one short, natural request a user of this tool might type, which needs exactly this tool with these arguments. "+
			"Do not name the tool. Reply with the request only.", t.Name, t.Description, argsJSON(c.Args))
		out = append(out, c)
	}
	var list strings.Builder
	for _, t := range tools {
		fmt.Fprintf(&list, "- %s: %s\n", t.Name, firstSentence(t.Description))
	}
	out = append(out, &draftCase{ID: id("no-tool-needed"), Prompt: negativePrompt,
		Comment: "a request none of the tools is for: the model must answer without calling one",
		ask:     "These are the tools of a server:\n" + list.String() + "\nWrite one short, natural question a user might ask that none of these tools helps with. Reply with the question only."})
	for _, p := range conformance.NearDuplicates(tools) {
		a := byName[p.A]
		c := &draftCase{ID: id(p.A + "-not-" + p.B), Tool: p.A, Forbid: []string{p.B}}
		c.Args, c.ArgsNote = exampleArgs(a)
		c.Prompt = userPrompt(a, c.Args)
		c.Comment = fmt.Sprintf("%s and %s have near-duplicate descriptions (%.0f%% alike): make this a request only %s is for; a call of %s fails the run",
			p.A, p.B, 100*p.Similarity, p.A, p.B)
		c.ask = fmt.Sprintf("Two tools have almost the same description.\nTool %s: %s\nTool %s: %s\n\n"+
			"Write one short, natural request a user might type that needs %s and not %s, with the arguments %s. Do not name the tools. Reply with the request only.",
			p.A, a.Description, p.B, byName[p.B].Description, p.A, p.B, argsJSON(c.Args))
		out = append(out, c)
	}
	return out
}

// exampleArgs are arguments for t that validate against its inputSchema:
// the required properties, each from the schema's own example, an example
// its description gives ("e.g. Paris"), or schema.SampleArgs' plain value
// (a const, default or enum value, or a value of the type). note says why
// there are none.
func exampleArgs(t mcp.Tool) (map[string]any, string) {
	sch, err := schema.Compile(t.InputSchema)
	if err != nil {
		return nil, "expect_args left out: the tool's inputSchema does not compile"
	}
	valid := func(args map[string]any) bool {
		b, _ := json.Marshal(args)
		v, err := schema.DecodeJSON(b)
		return err == nil && sch.Validate(v) == nil
	}
	sample := schema.SampleArgs(t.InputSchema)
	nicer := map[string]any{}
	var s struct {
		Properties map[string]struct {
			Type        any    `json:"type"`
			Description string `json:"description"`
			Examples    []any  `json:"examples"`
		} `json:"properties"`
	}
	_ = json.Unmarshal(t.InputSchema, &s)
	for name, v := range sample {
		nicer[name] = v
		p := s.Properties[name]
		if _, isString := v.(string); !isString {
			continue
		}
		switch {
		case len(p.Examples) > 0:
			nicer[name] = p.Examples[0]
		case describedExample(p.Description) != "":
			nicer[name] = describedExample(p.Description)
		}
	}
	for _, args := range []map[string]any{nicer, sample} {
		if valid(args) {
			if len(args) == 0 {
				return nil, ""
			}
			return args, ""
		}
	}
	return nil, "expect_args left out: no sample of the required arguments validates against the inputSchema; add them"
}

// exampleRE finds the example a parameter description gives: "e.g.
// Paris or New York", "for example acme", "such as INV-1012".
var exampleRE = regexp.MustCompile(`(?i)(?:e\.g\.,?|for example,?|such as)\s+([^,;()]+)`)

// describedExample is the first example a description gives, cut at "or",
// "and" or a sentence end; "" when it gives none.
func describedExample(desc string) string {
	m := exampleRE.FindStringSubmatch(desc)
	if m == nil {
		return ""
	}
	ex := m[1]
	for _, stop := range []string{" or ", " and ", ". ", "…"} {
		if i := strings.Index(ex, stop); i > 0 {
			ex = ex[:i]
		}
	}
	ex = strings.TrimSpace(strings.TrimRight(strings.TrimSpace(ex), ".:"))
	ex = strings.Trim(ex, "\"'`")
	if words := strings.Fields(ex); len(words) > 3 {
		// A sentence about the example ("acme matches Acme Corp"): its
		// first word is the example.
		ex = strings.Trim(words[0], "\"'`")
	}
	if ex == "" || len(ex) > 60 {
		return ""
	}
	return ex
}

// firstSentence is the description's first sentence, on one line.
func firstSentence(desc string) string {
	d := strings.Join(strings.Fields(desc), " ")
	for i, r := range d {
		if (r == '.' || r == '!' || r == '?') && (i+1 == len(d) || d[i+1] == ' ') {
			return d[:i+1]
		}
	}
	if len(d) > 200 {
		return d[:200] + "…"
	}
	return d
}

// kebab makes a case id of a name: lower case, runs of anything but a
// letter or digit as one "-".
func kebab(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	out := strings.TrimRight(b.String(), "-")
	if out == "" {
		out = "tool"
	}
	if len(out) > 100 {
		out = out[:100]
	}
	return out
}

func argsJSON(args map[string]any) string {
	if len(args) == 0 {
		return "{} (none)"
	}
	b, _ := json.Marshal(args)
	return string(b)
}
