package schema

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// shape says how a keyword holds subschemas.
type shape int

const (
	one   shape = 1 << iota // the value is a schema
	list                    // the value is an array of schemas
	named                   // the value is an object whose values are schemas
)

// subschemaKeywords lists every keyword of draft-04 through 2020-12 whose
// value holds subschemas, sorted so that walks visit them in a fixed order.
// Values inside other keywords (const, enum, default, examples, unknown
// keywords) are data: a "$ref" or "x-mcp-header" key there means nothing.
var subschemaKeywords = []struct {
	name  string
	shape shape
}{
	{"$defs", named},
	{"additionalItems", one},
	{"additionalProperties", one},
	{"allOf", list},
	{"anyOf", list},
	{"contains", one},
	{"contentSchema", one},
	{"definitions", named},
	{"dependencies", named}, // draft-04..07; array values are property lists
	{"dependentSchemas", named},
	{"else", one},
	{"if", one},
	{"items", one | list}, // an array before 2020-12
	{"not", one},
	{"oneOf", list},
	{"patternProperties", named},
	{"prefixItems", list},
	{"properties", named},
	{"propertyNames", one},
	{"then", one},
	{"unevaluatedItems", one},
	{"unevaluatedProperties", one},
}

// forEachSubschema calls fn for each direct subschema of obj, which sits at
// ptr, in a fixed order. keyword is the keyword it hangs from; for named
// keywords, name is its key (so "properties" and "region" for
// /properties/region).
func forEachSubschema(obj map[string]any, ptr string, fn func(keyword, name, ptr string, sub any)) {
	for _, kw := range subschemaKeywords {
		v, ok := obj[kw.name]
		if !ok {
			continue
		}
		base := ptr + "/" + escapeToken(kw.name)
		switch v := v.(type) {
		case map[string]any:
			if kw.shape&named != 0 {
				for _, k := range sortedKeys(v) {
					if isSchema(v[k]) {
						fn(kw.name, k, base+"/"+escapeToken(k), v[k])
					}
				}
			} else if kw.shape&one != 0 {
				fn(kw.name, "", base, v)
			}
		case bool:
			if kw.shape&one != 0 {
				fn(kw.name, "", base, v)
			}
		case []any:
			if kw.shape&list != 0 {
				for i, e := range v {
					if isSchema(e) {
						fn(kw.name, "", fmt.Sprintf("%s/%d", base, i), e)
					}
				}
			}
		}
	}
}

// eachSubschema calls fn for each direct subschema of obj, the ones
// forEachSubschema visits, in no particular order and with no pointer: for
// the walks that only need the pointer of what they find, and find
// nothing in nearly every schema (quickAudit).
func eachSubschema(obj map[string]any, fn func(sub any)) {
	for _, kw := range subschemaKeywords {
		v, ok := obj[kw.name]
		if !ok {
			continue
		}
		switch v := v.(type) {
		case map[string]any:
			if kw.shape&named != 0 {
				for _, sub := range v {
					if isSchema(sub) {
						fn(sub)
					}
				}
			} else if kw.shape&one != 0 {
				fn(v)
			}
		case bool:
			if kw.shape&one != 0 {
				fn(v)
			}
		case []any:
			if kw.shape&list != 0 {
				for _, e := range v {
					if isSchema(e) {
						fn(e)
					}
				}
			}
		}
	}
}

func isSchema(v any) bool {
	switch v.(type) {
	case map[string]any, bool:
		return true
	}
	return false
}

// knownDialect returns the canonical URL of the dialect a $schema value
// names, or "" if it names none this package supports. Like the library
// (draftFromURL in draft.go), it accepts http and https and an empty
// fragment.
func knownDialect(s string) string {
	s = strings.TrimSuffix(s, "#")
	if rest, ok := strings.CutPrefix(s, "https://"); ok {
		s = rest
	} else if rest, ok := strings.CutPrefix(s, "http://"); ok {
		s = rest
	} else {
		return ""
	}
	switch s {
	case "json-schema.org/draft/2020-12/schema":
		return Draft2020
	case "json-schema.org/draft/2019-09/schema":
		return Draft2019
	case "json-schema.org/draft-07/schema":
		return Draft7
	case "json-schema.org/draft-06/schema":
		return Draft6
	case "json-schema.org/draft-04/schema":
		return Draft4
	}
	return ""
}

func dialectName(url string) string {
	switch url {
	case Draft2020:
		return "JSON Schema 2020-12"
	case Draft2019:
		return "JSON Schema 2019-09"
	case Draft7:
		return "JSON Schema draft-07"
	case Draft6:
		return "JSON Schema draft-06"
	case Draft4:
		return "JSON Schema draft-04"
	}
	return url
}

func draftVersion(url string) int {
	switch url {
	case Draft2019:
		return 2019
	case Draft7:
		return 7
	case Draft6:
		return 6
	case Draft4:
		return 4
	}
	return 2020
}

// checkDialects rejects the first $schema, at the root or in any subschema,
// that names no supported dialect. MCP 2026-07-28 §JSON Schema Usage:
// implementations MUST handle unsupported dialects gracefully with an error.
// A custom metaschema URL is unsupported too: using it would mean loading it.
func checkDialects(doc any) *Error {
	var found *Error
	var walk func(v any, ptr string)
	walk = func(v any, ptr string) {
		obj, ok := v.(map[string]any)
		if !ok || found != nil {
			return
		}
		if s, ok := obj["$schema"].(string); ok && knownDialect(s) == "" {
			found = &Error{Kind: KindUnknownDialect, Pointer: ptr + "/$schema",
				Message: fmt.Sprintf("$schema %q is not a supported dialect (2020-12, 2019-09, draft-07, draft-06, draft-04)", s)}
			return
		}
		forEachSubschema(obj, ptr, func(_, _, p string, sub any) { walk(sub, p) })
	}
	walk(doc, "")
	return found
}

// checkCounts enforces MaxSubschemas and MaxPatterns, pointing at the
// subschema or pattern that goes over the limit in walk order.
func checkCounts(doc any) *Error {
	schemas, patterns := 0, 0
	var found *Error
	var walk func(v any, ptr string)
	walk = func(v any, ptr string) {
		if found != nil {
			return
		}
		if schemas++; schemas > MaxSubschemas {
			found = &Error{Kind: KindTooLarge, Pointer: ptr,
				Message: fmt.Sprintf("schema has more than %d subschemas", MaxSubschemas)}
			return
		}
		obj, ok := v.(map[string]any)
		if !ok {
			return
		}
		n := 0
		if _, ok := obj["pattern"].(string); ok {
			n++
		}
		if pp, ok := obj["patternProperties"].(map[string]any); ok {
			n += len(pp)
		}
		if patterns += n; patterns > MaxPatterns {
			found = &Error{Kind: KindTooLarge, Pointer: ptr,
				Message: fmt.Sprintf("schema has more than %d regular expressions (pattern, patternProperties)", MaxPatterns)}
			return
		}
		forEachSubschema(obj, ptr, func(_, _, p string, sub any) { walk(sub, p) })
	}
	walk(doc, "")
	return found
}

// audit is what quickAudit found: whether scan, checkCounts, clampCounts
// and checkDialects have anything to do.
type audit struct {
	schemas, patterns int
	deep              bool // a container deeper than MaxDepth or a number scan refuses
	clamp             bool // a count keyword clampCounts may rewrite
	dialect           bool // a $schema checkDialects refuses
}

// quickAudit walks doc once, building no pointer, to tell which of the
// checks before compiling can find something: each of them builds the
// pointer of every value it passes, to report the first it refuses, and
// together they were a quarter of checking a big server's schemas (issue
// 21). compile runs a check only when the audit says it may fail, so what
// is reported is what the check says.
func quickAudit(doc any) audit {
	var a audit
	if a.deep = !scanFine(doc, 1); a.deep {
		return a // scan will refuse it; nothing deeper is walked
	}
	var walk func(v any)
	walk = func(v any) {
		if a.schemas++; a.schemas > MaxSubschemas {
			return
		}
		obj, ok := v.(map[string]any)
		if !ok {
			return
		}
		if _, ok := obj["pattern"].(string); ok {
			a.patterns++
		}
		if pp, ok := obj["patternProperties"].(map[string]any); ok {
			a.patterns += len(pp)
		}
		if s, ok := obj["$schema"].(string); ok && knownDialect(s) == "" {
			a.dialect = true
		}
		for _, kw := range countKeywords {
			if n, ok := obj[kw].(json.Number); ok && !(len(n) < 19 && strings.Trim(string(n), "0123456789") == "") {
				a.clamp = true
			}
		}
		eachSubschema(obj, walk)
	}
	walk(doc)
	return a
}

// scanFine reports whether scan finds nothing in v.
func scanFine(v any, depth int) bool {
	switch v := v.(type) {
	case map[string]any:
		if depth > MaxDepth {
			return false
		}
		for _, e := range v {
			if !scanFine(e, depth+1) {
				return false
			}
		}
	case []any:
		if depth > MaxDepth {
			return false
		}
		for _, e := range v {
			if !scanFine(e, depth+1) {
				return false
			}
		}
	case json.Number:
		return !numberTooBig(string(v))
	}
	return true
}

// countKeywords hold a number of characters, items or properties.
var countKeywords = []string{"maxContains", "maxItems", "maxLength", "maxProperties",
	"minContains", "minItems", "minLength", "minProperties"}

// clampCounts rewrites count keywords above math.MaxInt64 to math.MaxInt64.
// The library converts them with big.Int.Int64, which wraps, so "maxItems":
// 18446744073709551615 would become -1 and reject every array. No value has
// more than MaxInt64 items, so the clamped schema means the same. Negative
// values are left for the metaschema to reject.
func clampCounts(v any) {
	obj, ok := v.(map[string]any)
	if !ok {
		return
	}
	for _, kw := range countKeywords {
		n, ok := obj[kw].(json.Number)
		if !ok {
			continue
		}
		r, ok := new(big.Rat).SetString(string(n))
		if ok && r.IsInt() && !r.Num().IsInt64() && r.Sign() > 0 {
			obj[kw] = json.Number(strconv.FormatInt(math.MaxInt64, 10))
		}
	}
	forEachSubschema(obj, "", func(_, _, _ string, sub any) { clampCounts(sub) })
}
