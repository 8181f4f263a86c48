package schema

import (
	"fmt"
	"net/url"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// checkFanout bounds the validation cost of a compiled schema (MCP
// 2026-07-28 §JSON Schema Usage: validators SHOULD bound the cost of
// composition keywords). The library evaluates every in-place applicator
// each time, without memoizing, so a schema whose definitions each apply the
// next one twice makes one value cost 2^n evaluations. For every schema
// reachable from the root it counts the in-place applicator tree below it
// (shared subschemas counted once per use, a cycle counted once) and rejects
// the schema if any count exceeds MaxFanout. Recursion through properties or
// items is not counted: its cost grows with the instance, which the caller
// bounds.
func checkFanout(root *jsonschema.Schema) *Error {
	memo := map[*jsonschema.Schema]int{}
	active := map[*jsonschema.Schema]bool{}
	var fan func(s *jsonschema.Schema) int
	fan = func(s *jsonschema.Schema) int {
		if n, ok := memo[s]; ok {
			return n
		}
		if active[s] {
			return 1
		}
		active[s] = true
		n := 1
		for _, c := range inPlace(s) {
			if n += fan(c); n > MaxFanout {
				n = MaxFanout + 1
				break
			}
		}
		active[s] = false
		memo[s] = n
		return n
	}

	// Breadth first, children in a fixed order, so the schema reported is
	// the same on every run and the one nearest the root.
	seen := map[*jsonschema.Schema]bool{root: true}
	queue := []*jsonschema.Schema{root}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		if fan(s) > MaxFanout {
			return &Error{Kind: KindTooComplex, Pointer: locationPointer(s.Location),
				Message: fmt.Sprintf("in-place applicators ($ref, allOf, anyOf, oneOf, not, if/then/else) apply more than %d schemas to one value", MaxFanout)}
		}
		for _, c := range append(inPlace(s), located(s)...) {
			if !seen[c] {
				seen[c] = true
				queue = append(queue, c)
			}
		}
	}
	return nil
}

// inPlace returns the subschemas s applies to the same instance value.
func inPlace(s *jsonschema.Schema) []*jsonschema.Schema {
	var out []*jsonschema.Schema
	add := func(c *jsonschema.Schema) {
		if c != nil {
			out = append(out, c)
		}
	}
	add(s.Ref)
	add(s.RecursiveRef)
	if s.DynamicRef != nil {
		add(s.DynamicRef.Ref)
	}
	out = append(out, s.AllOf...)
	out = append(out, s.AnyOf...)
	out = append(out, s.OneOf...)
	add(s.Not)
	add(s.If)
	add(s.Then)
	add(s.Else)
	for _, k := range sortedSchemaKeys(s.DependentSchemas) {
		add(s.DependentSchemas[k])
	}
	deps := make([]string, 0, len(s.Dependencies))
	for k := range s.Dependencies {
		deps = append(deps, k)
	}
	sort.Strings(deps)
	for _, k := range deps {
		if c, ok := s.Dependencies[k].(*jsonschema.Schema); ok {
			add(c)
		}
	}
	return out
}

// located returns the subschemas s applies to property values or items.
func located(s *jsonschema.Schema) []*jsonschema.Schema {
	var out []*jsonschema.Schema
	add := func(c any) {
		switch c := c.(type) {
		case *jsonschema.Schema:
			if c != nil {
				out = append(out, c)
			}
		case []*jsonschema.Schema:
			out = append(out, c...)
		}
	}
	for _, k := range sortedSchemaKeys(s.Properties) {
		add(s.Properties[k])
	}
	pats := make([]jsonschema.Regexp, 0, len(s.PatternProperties))
	for re := range s.PatternProperties {
		pats = append(pats, re)
	}
	sort.Slice(pats, func(i, j int) bool { return pats[i].String() < pats[j].String() })
	for _, re := range pats {
		add(s.PatternProperties[re])
	}
	add(s.AdditionalProperties)
	add(s.PropertyNames)
	add(s.UnevaluatedProperties)
	add(s.Contains)
	add(s.Items)
	add(s.AdditionalItems)
	add(s.PrefixItems)
	add(s.Items2020)
	add(s.UnevaluatedItems)
	add(s.ContentSchema)
	return out
}

func sortedSchemaKeys(m map[string]*jsonschema.Schema) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// locationPointer turns a library schema location, the document URL plus a
// percent-encoded pointer, into a plain JSON pointer.
func locationPointer(loc string) string {
	_, frag, _ := strings.Cut(loc, "#")
	if p, err := url.PathUnescape(frag); err == nil {
		return p
	}
	return frag
}
