package initcmd

import (
	"encoding/json"
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mcp-eval/mcp-eval/mcp"
)

// userPrompt is a draft prompt worded as a user would ask, made without a
// model from the tool's description (or title, or name) and its
// arguments: the description's first clause as a request ("Could you get
// the current weather observation for Paris?"), an argument's value put
// where the clause names it ("for a city" → "for Paris"), the others
// added after "with". It is deterministic, so the same server drafts the
// same file.
func userPrompt(t mcp.Tool, args map[string]any) string {
	phrase, verb := requestPhrase(t)
	names := make([]string, 0, len(args))
	for n := range args {
		names = append(names, n)
	}
	sort.Strings(names)
	params := paramDescriptions(t.InputSchema)
	var rest []string
	for _, n := range names {
		v := valueText(args[n])
		if p, ok := substitute(phrase, argWords(n, params[n]), v); ok {
			phrase = p
			continue
		}
		if _, isString := args[n].(string); isString {
			v = `"` + v + `"`
		}
		rest = append(rest, "the "+humanName(n)+" "+v)
	}
	s := phrase
	switch len(rest) {
	case 0:
	case 1:
		s += ", with " + rest[0]
	default:
		s += ", with " + strings.Join(rest[:len(rest)-1], ", ") + " and " + rest[len(rest)-1]
	}
	if verb {
		return "Could you " + s + "?"
	}
	return "I need " + s + "."
}

// boilerplate are description openings that say what a tool is rather
// than what it does; the request starts after them.
var boilerplate = []string{"use this tool to ", "use this to ", "this tool will ", "this tool ", "a tool that ", "a tool to ",
	"tool that ", "tool to ", "allows you to ", "allows the user to ", "lets you ", "helps you ", "used to ", "this function ", "function to "}

// clauseEnds cut the description's first sentence to its request: what
// follows describes the result or the details, not what a user asks.
var clauseEnds = []string{": ", "; ", " (", " — ", " – ", " - ", ", ", " and return", " returning ", " which ", " that returns "}

// verbs are the imperatives a tool description commonly opens with; a
// phrase opening with one reads "Could you …?", any other "I need …".
var verbs = map[string]bool{}

func init() {
	for _, v := range strings.Fields(`add analyze append archive ask assign book calculate call cancel check clear click close
comment compare compute convert copy count create delete describe download draft edit estimate evaluate execute explain
export extract fetch fill find forecast format generate get import insert invite list load locate log look lookup make
merge move navigate open order pay ping post predict preview print publish query read record refresh register reload remove
rename render reply report request reserve reset resolve restart retrieve return review run save scan schedule search
select send set share show sort start stop submit subscribe summarize sync tag take track transfer translate trigger
update upload validate verify view watch write`) {
		verbs[v] = true
	}
}

// plainVerbs are verbs a user would not say; get says it.
var plainVerbs = map[string]string{"return": "get", "retrieve": "get", "fetch": "get", "obtain": "get"}

// requestPhrase is the request in the tool's description, lower-cased and
// in the imperative, and whether it opens with a verb.
func requestPhrase(t mcp.Tool) (string, bool) {
	d := strings.TrimSpace(firstSentence(t.Description))
	for _, b := range boilerplate {
		if len(d) > len(b) && strings.EqualFold(d[:len(b)], b) {
			d = d[len(b):]
			break
		}
	}
	for _, end := range clauseEnds {
		if i := strings.Index(d, end); i > 0 {
			d = d[:i]
		}
	}
	d = strings.TrimRight(strings.TrimSpace(d), ".!?:… ")
	if d == "" {
		// No description: the title, or the name in words ("get_weather"
		// → "get weather").
		d = strings.TrimSpace(t.Title)
		if d == "" && t.Annotations != nil {
			d = strings.TrimSpace(t.Annotations.Title)
		}
		if d == "" {
			d = humanName(t.Name)
		}
	}
	first, rest, _ := strings.Cut(d, " ")
	word := lowerFirst(first)
	if v, ok := imperative(strings.ToLower(word)); ok {
		word = v
	}
	if v, ok := plainVerbs[strings.ToLower(word)]; ok {
		word = v
	}
	phrase := strings.TrimSpace(word + " " + rest)
	return phrase, verbs[strings.ToLower(word)]
}

// imperative is a third-person verb in the imperative ("Searches" →
// "search", "Queries" → "query"), when it is one of verbs.
func imperative(w string) (string, bool) {
	if verbs[w] {
		return w, true
	}
	for _, c := range []struct{ suffix, repl string }{{"ies", "y"}, {"es", ""}, {"s", ""}} {
		if base, ok := strings.CutSuffix(w, c.suffix); ok && verbs[base+c.repl] {
			return base + c.repl, true
		}
	}
	return "", false
}

// lowerFirst lower-cases a word's first letter unless the word has other
// capitals (an acronym or a name: "GitHub", "SQL").
func lowerFirst(w string) string {
	r, n := utf8.DecodeRuneInString(w)
	if n == 0 || strings.IndexFunc(w[n:], unicode.IsUpper) >= 0 {
		return w
	}
	return string(unicode.ToLower(r)) + w[n:]
}

// argWords are the nouns that can name an argument in a description: the
// words of its name ("customer_id" → "customer"), and the first word of
// its own description ("Recipient email address" → "recipient").
func argWords(name, desc string) []string {
	var out []string
	for _, w := range strings.Fields(humanName(name)) {
		if len(w) >= 2 && !stopWords[w] {
			out = append(out, w)
		}
	}
	if f := strings.FieldsFunc(desc, func(r rune) bool { return !unicode.IsLetter(r) }); len(f) > 0 && len(f[0]) >= 3 {
		out = append(out, strings.ToLower(f[0]))
	}
	return out
}

// stopWords are argument-name words that are no noun ("to", "from").
var stopWords = map[string]bool{"a": true, "an": true, "and": true, "as": true, "at": true, "by": true, "for": true, "from": true,
	"in": true, "is": true, "of": true, "on": true, "or": true, "the": true, "to": true, "with": true}

// substitute puts value where phrase names the argument with an
// indefinite noun phrase ("a city", "one customer", "a given id").
func substitute(phrase string, words []string, value string) (string, bool) {
	for _, w := range words {
		re := regexp.MustCompile(`(?i)\b(?:a|an|one|some|any|given|specified|particular)\s+(?:(?:given|specific|particular|single)\s+)?` + regexp.QuoteMeta(w) + `\b`)
		// The word itself, not the start of a compound ("a plain-text
		// email" names no argument called plain).
		if loc := re.FindStringIndex(phrase); loc != nil && !strings.HasPrefix(phrase[loc[1]:], "-") {
			return phrase[:loc[0]] + value + phrase[loc[1]:], true
		}
	}
	return phrase, false
}

// humanName is an identifier in words: "customer_id", "customerId" and
// "customer-id" are "customer id".
func humanName(s string) string {
	var b strings.Builder
	prev := rune(0)
	for _, r := range s {
		switch {
		case r == '_' || r == '-' || r == '.' || r == '/' || r == ' ':
			b.WriteByte(' ')
		case unicode.IsUpper(r) && unicode.IsLower(prev):
			b.WriteByte(' ')
			b.WriteRune(unicode.ToLower(r))
		default:
			b.WriteRune(unicode.ToLower(r))
		}
		prev = r
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// valueText is an argument's value as a user would write it: a string as
// it is, anything else as JSON.
func valueText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// paramDescriptions are the descriptions of the inputSchema's properties.
func paramDescriptions(raw json.RawMessage) map[string]string {
	var s struct {
		Properties map[string]struct {
			Description string `json:"description"`
		} `json:"properties"`
	}
	_ = json.Unmarshal(raw, &s)
	out := map[string]string{}
	for n, p := range s.Properties {
		out[n] = p.Description
	}
	return out
}
