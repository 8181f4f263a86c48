package schema

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/mcp-eval/mcp-eval/internal/jsonscan"
)

// The x-mcp-header rules are in MCP 2026-07-28 server/tools.mdx §x-mcp-header
// and basic/transports/streamable-http.mdx §Custom Headers from Tool
// Parameters (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http). A client on Streamable HTTP MUST
// drop a tool whose annotations break them, so each broken rule is an issue.

// HeaderParam is an x-mcp-header annotation that follows every rule: the
// client sends the argument at Path as the header Mcp-Param-{Name}.
type HeaderParam struct {
	Name    string   // the annotation value
	Path    []string // property names from the root to the annotated property
	Pointer string   // JSON pointer of the annotated property's schema
}

// HeaderIssue is an x-mcp-header annotation that breaks a rule.
type HeaderIssue struct {
	// Pointer is the JSON pointer of the x-mcp-header keyword, e.g.
	// "/properties/region/x-mcp-header".
	Pointer string
	Message string
}

func (i HeaderIssue) String() string { return displayPointer(i.Pointer) + ": " + i.Message }

// XMCPHeaders finds the x-mcp-header annotations in a tool inputSchema and
// checks them: the value is a non-empty RFC 9110 token (1*tchar, so no CR,
// LF or other control characters), unique ignoring case, on a property whose
// type is string, integer or boolean (never number), and that property is
// reachable from the root through "properties" keys only (not items,
// composition or conditional keywords, $defs or $ref). Annotations are only
// looked for in schema positions; an "x-mcp-header" key inside const,
// default or examples is data.
//
// Both results are in a fixed walk order. A schema that cannot be decoded,
// or breaks MaxSize or MaxDepth, gives a single issue at the root.
func XMCPHeaders(raw []byte) ([]HeaderParam, []HeaderIssue) {
	if len(raw) > MaxSize {
		return nil, []HeaderIssue{{Message: fmt.Sprintf("schema is %d bytes; the limit is %d", len(raw), MaxSize)}}
	}
	if quiet(raw) {
		return nil, nil
	}
	return walkHeaders(raw)
}

// walkHeaders is XMCPHeaders without its shortcut.
func walkHeaders(raw []byte) ([]HeaderParam, []HeaderIssue) {
	doc, err := DecodeJSON(raw)
	if err != nil {
		return nil, []HeaderIssue{{Message: "schema is not JSON: " + err.Error()}}
	}
	if e := scan(doc, "", 1); e != nil {
		return nil, []HeaderIssue{{Pointer: e.Pointer, Message: e.Message}}
	}
	h := &headerWalk{seen: map[string]string{}}
	h.walk(doc, "", nil, "", true)
	return h.params, h.issues
}

// quiet reports, without decoding raw, that the walk below would find
// nothing: raw is valid JSON, nests no deeper than MaxDepth, holds no
// number that scan refuses, and neither spells "x-mcp-header" nor holds an
// escape that could spell it. Most schemas are such, and decoding each one
// was a tenth of a big server's run; anything else takes the full walk.
func quiet(raw []byte) bool {
	if bytes.Contains(raw, []byte("x-mcp-header")) || bytes.Contains(raw, []byte(`\u`)) || !jsonscan.Valid(raw) {
		return false
	}
	depth, inString, escaped := 0, false, false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch {
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			if depth++; depth > MaxDepth {
				return false
			}
		case c == '}' || c == ']':
			depth--
		case c == '-' || (c >= '0' && c <= '9'):
			j := i
			for j < len(raw) && strings.IndexByte("+-0123456789.eE", raw[j]) >= 0 {
				j++
			}
			if numberTooBig(string(raw[i:j])) {
				return false
			}
			i = j - 1
		}
	}
	return true
}

type headerWalk struct {
	params []HeaderParam
	issues []HeaderIssue
	seen   map[string]string // lower-cased name -> pointer of its first use
}

// walk visits one schema. path holds the property names leading to it while
// every step so far is a "properties" key; via names the first keyword on
// the way that is not.
func (h *headerWalk) walk(v any, ptr string, path []string, via string, root bool) {
	obj, ok := v.(map[string]any)
	if !ok {
		return
	}
	if ann, ok := obj["x-mcp-header"]; ok {
		h.check(obj, ann, ptr, path, via, root)
	}
	forEachSubschema(obj, ptr, func(keyword, name, p string, sub any) {
		if via == "" && keyword == "properties" {
			h.walk(sub, p, append(path[:len(path):len(path)], name), "", false)
			return
		}
		childVia := via
		if childVia == "" {
			childVia = keyword
		}
		h.walk(sub, p, nil, childVia, false)
	})
}

func (h *headerWalk) check(obj map[string]any, ann any, ptr string, path []string, via string, root bool) {
	kwPtr := ptr + "/x-mcp-header"
	issue := func(format string, args ...any) {
		h.issues = append(h.issues, HeaderIssue{Pointer: kwPtr, Message: fmt.Sprintf(format, args...)})
	}
	switch {
	case root:
		issue("x-mcp-header is on the root schema, which is not a property")
		return
	case via != "":
		issue("x-mcp-header is not statically reachable: the path from the root goes through %q, and only \"properties\" keys are allowed", via)
		return
	}
	name, ok := ann.(string)
	if !ok {
		issue("x-mcp-header must be a string, got %s", jsonTypeName(ann))
		return
	}
	tokenMsg, typeMsg := tokenProblem(name), headerTypeProblem(obj)
	if tokenMsg != "" {
		issue("%s", tokenMsg)
	}
	if typeMsg != "" {
		issue("%s", typeMsg)
	}
	if tokenMsg != "" {
		return
	}
	// Names are header names, which compare case-insensitively (RFC 9110
	// §5.1); tchar is ASCII, so ToLower folds exactly.
	lower := strings.ToLower(name)
	if first, dup := h.seen[lower]; dup {
		issue("x-mcp-header %q duplicates the one at %s (names are compared ignoring case)", name, first)
		return
	}
	h.seen[lower] = kwPtr
	if typeMsg == "" {
		h.params = append(h.params, HeaderParam{Name: name, Path: path, Pointer: ptr})
	}
}

// tokenProblem checks name against RFC 9110 §5.6.2: token = 1*tchar.
func tokenProblem(name string) string {
	if name == "" {
		return "x-mcp-header must not be empty"
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c < 0x20 || c == 0x7f {
			return fmt.Sprintf("x-mcp-header %q contains a control character (%q)", name, rune(c))
		}
		if !isTchar(c) {
			r := []rune(name[i:])[0]
			return fmt.Sprintf("x-mcp-header %q is not an HTTP token: %q is not allowed", name, r)
		}
	}
	return ""
}

func isTchar(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

// headerTypeProblem checks the annotated property's own "type". A nullable
// primitive (["string","null"]) is accepted: the spec says a null argument
// simply sends no header.
func headerTypeProblem(obj map[string]any) string {
	const want = "x-mcp-header needs type string, integer or boolean"
	var types []string
	switch t := obj["type"].(type) {
	case nil:
		if _, ok := obj["type"]; !ok {
			return `the property has no "type"; ` + want + ` declared next to the annotation`
		}
		return `"type" is null; ` + want
	case string:
		types = []string{t}
	case []any:
		for _, e := range t {
			s, ok := e.(string)
			if !ok {
				return `"type" is not a list of strings; ` + want
			}
			types = append(types, s)
		}
	default:
		return `"type" is not a string; ` + want
	}
	primitive := false
	for _, t := range types {
		switch t {
		case "string", "integer", "boolean":
			primitive = true
		case "null":
		case "number":
			return `type "number" is not allowed for x-mcp-header; use "integer" or "string"`
		default:
			return fmt.Sprintf("type %q is not allowed; %s", t, want)
		}
	}
	if !primitive {
		return want
	}
	return ""
}

func jsonTypeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return "a number"
}
