package schema

import (
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
)

// surelyMetaValid reports whether doc, a 2020-12 schema document from
// DecodeJSON, certainly conforms to the 2020-12 metaschema the library
// checks it against (its embedded copy, formats asserted, regexes through
// re). false means "not certain", never "invalid": the library's own
// check then decides, and reports what is wrong. It is the library's check
// written out for the keywords schemas use, and gives up on anything
// subtler (identifiers, anchors, dynamic references, vocabularies, a $ref
// that is not a fragment, numbers it would have to compare as rationals).
//
// The library's check is a validation of the whole document against a
// metaschema of about 90 subschemas, every keyword of every subschema
// evaluated through $dynamicRef; at 1 000 tools it was half of compiling
// their schemas and a sixth of a conformance run's CPU. A
// schema that passes here is compiled without it (Check); TestCheckAsCompile
// and FuzzCheck hold Check to what Compile says.
func surelyMetaValid(doc any, re *regexpEngine) bool {
	if obj, ok := doc.(map[string]any); ok {
		if s, ok := obj["$schema"]; ok && s != Draft2020 {
			return false
		}
	}
	return metaValid(doc, re, true)
}

// metaValid checks one schema: a boolean, or an object whose keywords each
// hold what the metaschema allows.
func metaValid(v any, re *regexpEngine, root bool) bool {
	switch v := v.(type) {
	case bool:
		return true
	case map[string]any:
		for k, val := range v {
			if !keywordValid(k, val, re, root) {
				return false
			}
		}
		return true
	}
	return false
}

func keywordValid(k string, v any, re *regexpEngine, root bool) bool {
	switch k {
	// Core. $schema is checked at the root (surelyMetaValid); a nested one
	// starts a resource of its own. Identifiers, anchors, dynamic
	// references and vocabularies move where references resolve: left to
	// the library.
	case "$schema":
		return root
	case "$id", "$anchor", "$dynamicAnchor", "$dynamicRef", "$vocabulary", "$recursiveAnchor", "$recursiveRef":
		return false
	case "$ref":
		s, ok := v.(string)
		return ok && strings.HasPrefix(s, "#") && uriReference(s)
	case "$comment":
		return isString(v)
	case "$defs", "definitions", "properties", "dependentSchemas":
		return schemaMap(v, re)
	// Applicator, unevaluated, content.
	case "prefixItems", "allOf", "anyOf", "oneOf":
		a, ok := v.([]any)
		if !ok || len(a) == 0 {
			return false
		}
		for _, s := range a {
			if !metaValid(s, re, false) {
				return false
			}
		}
		return true
	case "items", "contains", "additionalProperties", "propertyNames", "if", "then", "else", "not",
		"unevaluatedItems", "unevaluatedProperties", "contentSchema":
		return metaValid(v, re, false)
	case "patternProperties":
		m, ok := v.(map[string]any)
		if !ok {
			return false
		}
		for p, s := range m {
			if !regexValid(p, re) || !metaValid(s, re, false) {
				return false
			}
		}
		return true
	case "dependencies":
		m, ok := v.(map[string]any)
		if !ok {
			return false
		}
		for _, d := range m {
			if !metaValid(d, re, false) && !stringArray(d) {
				return false
			}
		}
		return true
	// Validation.
	case "type":
		switch t := v.(type) {
		case string:
			return simpleType(t)
		case []any:
			seen := map[string]bool{}
			for _, e := range t {
				s, ok := e.(string)
				if !ok || !simpleType(s) || seen[s] {
					return false
				}
				seen[s] = true
			}
			return len(t) > 0
		}
		return false
	case "const", "default":
		return true
	case "enum", "examples":
		_, ok := v.([]any)
		return ok
	case "multipleOf":
		// A number above 0: certain when it reads as a positive float (a
		// value too small for float64 is left to the library).
		n, ok := v.(json.Number)
		if !ok {
			return false
		}
		f, err := strconv.ParseFloat(string(n), 64)
		return err == nil && f > 0
	case "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum":
		_, ok := v.(json.Number)
		return ok
	case "maxLength", "minLength", "maxItems", "minItems", "maxContains", "minContains", "maxProperties", "minProperties":
		// A non-negative integer: certain when written with digits only
		// (1.0 is one too, but left to the library).
		n, ok := v.(json.Number)
		return ok && len(n) > 0 && strings.Trim(string(n), "0123456789") == ""
	case "pattern":
		s, ok := v.(string)
		return ok && regexValid(s, re)
	case "uniqueItems", "deprecated", "readOnly", "writeOnly":
		_, ok := v.(bool)
		return ok
	case "required":
		return stringArray(v)
	case "dependentRequired":
		m, ok := v.(map[string]any)
		if !ok {
			return false
		}
		for _, d := range m {
			if !stringArray(d) {
				return false
			}
		}
		return true
	// Meta-data, format annotation, content.
	case "title", "description", "format", "contentEncoding", "contentMediaType":
		return isString(v)
	}
	// Any other keyword is not the metaschema's business.
	return true
}

func isString(v any) bool {
	_, ok := v.(string)
	return ok
}

// schemaMap: an object whose every value is a schema.
func schemaMap(v any, re *regexpEngine) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	for _, s := range m {
		if !metaValid(s, re, false) {
			return false
		}
	}
	return true
}

// stringArray: an array of distinct strings (validation's stringArray).
func stringArray(v any) bool {
	a, ok := v.([]any)
	if !ok {
		return false
	}
	for i, e := range a {
		s, ok := e.(string)
		if !ok {
			return false
		}
		for _, f := range a[:i] {
			if f == s {
				return false
			}
		}
	}
	return true
}

func simpleType(s string) bool {
	switch s {
	case "array", "boolean", "integer", "null", "number", "object", "string":
		return true
	}
	return false
}

// regexValid is format "regex" as the library asserts it in the
// metaschema: the engine compiles the pattern (and keeps the result for
// the pattern keyword's own compiling).
func regexValid(p string, re *regexpEngine) bool {
	_, err := re.compile(p)
	return err == nil
}

// uriReference is format "uri-reference" as the library asserts it
// (validateURIReference in its format.go), made stricter: no backslash, a
// URL that net/url parses, and no colon in a host (an IPv6 literal, which
// the library checks further).
func uriReference(s string) bool {
	if strings.Contains(s, `\`) {
		return false
	}
	u, err := url.Parse(s)
	return err == nil && !strings.Contains(u.Hostname(), ":")
}

// surelyCompiles reports whether the library compiles doc, a document that
// surelyMetaValid passed, whose references refs found (findPlainRefs),
// without an error, and checkFanout then passes it: what Check wants to
// know, answered without building the compiled schema, which at 1 000
// tools was three quarters of checking their schemas. As for
// surelyMetaValid, false means "not certain": Check then compiles. It is
// certain when
//   - every $ref is "#" or a JSON pointer of plain tokens (no escapes, no
//     percent-encoding) naming a subschema, so the library resolves it to
//     a schema that the metaschema check covered (a $ref to data, say
//     "#/required/0", is left to the library);
//   - the in-place applicators have no cycle and apply at most MaxFanout
//     schemas to one value from any subschema. For the usual document,
//     whose $refs name definitions that hold no $ref themselves, a chain of
//     in-place applicators takes at most one $ref, so none is a cycle, and
//     from any subschema they reach at most n + r·n schemas (n subschemas,
//     r $refs): within MaxFanout when n·(1+r) is. Any other document is
//     counted (fanoutCounted).
func surelyCompiles(doc any, refs plainRefs) bool {
	if !refs.sure {
		return false
	}
	if shallowFanout(refs) {
		return true
	}
	return fanoutCounted(doc)
}

// shallowFanout reports whether refs show the fan-out bound holds without
// counting: n·(1+r) is within MaxFanout and no $ref names a subschema
// holding a $ref.
func shallowFanout(refs plainRefs) bool {
	if refs.schemas*(1+len(refs.targets)) > MaxFanout {
		return false
	}
	for _, t := range refs.targets {
		if holdsRef(t) {
			return false
		}
	}
	return true
}

// schemaAt returns the subschema of doc at the pointer ptr (plain tokens,
// plainRef's), and false when ptr names no schema position forEachSubschema
// visits.
func schemaAt(doc any, ptr string) (any, bool) {
	v := doc
	toks := strings.Split(ptr, "/")[1:]
	for i := 0; i < len(toks); i++ {
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		sh, known := subschemaShape[toks[i]]
		if !known {
			return nil, false
		}
		sub, ok := obj[toks[i]]
		if !ok {
			return nil, false
		}
		switch c := sub.(type) {
		case map[string]any:
			if sh&named != 0 {
				if i++; i == len(toks) {
					return nil, false
				}
				if sub, ok = c[toks[i]]; !ok || !isSchema(sub) {
					return nil, false
				}
			} else if sh&one == 0 {
				return nil, false
			}
		case bool:
			if sh&one == 0 {
				return nil, false
			}
		case []any:
			if sh&list == 0 {
				return nil, false
			}
			if i++; i == len(toks) {
				return nil, false
			}
			k, err := strconv.Atoi(toks[i])
			if err != nil || k < 0 || k >= len(c) || strconv.Itoa(k) != toks[i] || !isSchema(c[k]) {
				return nil, false
			}
			sub = c[k]
		default:
			return nil, false
		}
		v = sub
	}
	return v, true
}

// subschemaShape is subschemaKeywords by name.
var subschemaShape = func() map[string]shape {
	m := map[string]shape{}
	for _, kw := range subschemaKeywords {
		m[kw.name] = kw.shape
	}
	return m
}()

// holdsRef reports whether v or any subschema of it has a $ref.
func holdsRef(v any) bool {
	obj, ok := v.(map[string]any)
	if !ok {
		return false
	}
	if _, has := obj["$ref"]; has {
		return true
	}
	found := false
	eachSubschema(obj, func(sub any) {
		if !found && holdsRef(sub) {
			found = true
		}
	})
	return found
}

// fanoutCounted is surelyCompiles for any document: it counts the
// in-place applicator graph node by node, by pointer.
func fanoutCounted(doc any) bool {
	nodes := map[string]any{}
	var collect func(ptr string, v any)
	collect = func(ptr string, v any) {
		nodes[ptr] = v
		if obj, ok := v.(map[string]any); ok {
			forEachSubschema(obj, ptr, func(_, _, p string, sub any) { collect(p, sub) })
		}
	}
	collect("", doc)
	const (
		unknown = iota
		active
		counted
	)
	state := map[string]int{}
	fan := map[string]int{}
	var count func(ptr string) bool
	count = func(ptr string) bool {
		switch state[ptr] {
		case active:
			return false // a cycle of in-place applicators
		case counted:
			return true
		}
		state[ptr] = active
		n := 1
		ok := true
		add := func(p string) {
			if ok = ok && count(p); ok {
				if n += fan[p]; n > MaxFanout {
					ok = false
				}
			}
		}
		if obj, isObj := nodes[ptr].(map[string]any); isObj {
			if ref, has := obj["$ref"]; has {
				target, plain := plainRef(ref)
				if _, found := nodes[target]; !plain || !found {
					return false
				}
				add(target)
			}
			forEachSubschema(obj, ptr, func(keyword, _, p string, _ any) {
				if inPlaceKeyword[keyword] {
					add(p)
				}
			})
		}
		if !ok {
			return false
		}
		state[ptr], fan[ptr] = counted, n
		return true
	}
	for ptr := range nodes {
		if !count(ptr) {
			return false
		}
	}
	return true
}

// inPlaceKeyword: the keywords whose subschemas apply to the instance
// itself (inPlace), as opposed to its properties or items.
var inPlaceKeyword = map[string]bool{
	"allOf": true, "anyOf": true, "oneOf": true, "not": true, "if": true, "then": true, "else": true,
	"dependentSchemas": true, "dependencies": true,
}

// plainRef returns the JSON pointer a $ref of "#" or "#/a/b" names, and
// whether the ref is that plain: tokens of letters, digits and "_-.$"
// only, which mean the same to every resolver.
func plainRef(v any) (string, bool) {
	s, ok := v.(string)
	if !ok || !strings.HasPrefix(s, "#") {
		return "", false
	}
	ptr := s[1:]
	if ptr == "" {
		return "", true
	}
	if !strings.HasPrefix(ptr, "/") {
		return "", false
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		if tok == "" {
			return "", false
		}
		for i := 0; i < len(tok); i++ {
			c := tok[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.' || c == '$') {
				return "", false
			}
		}
	}
	return ptr, true
}
