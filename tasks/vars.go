package tasks

import (
	"regexp"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// maxVarCombinations bounds what one vars: may expand into.
const maxVarCombinations = 100

var (
	varName        = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	varPlaceholder = regexp.MustCompile(`\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}`)
)

// expandVars turns a case with vars: into one case node per combination
// of the values, with {{name}} replaced in every text of the case (never
// in keys). The id gets the values as a suffix, unless it uses a
// placeholder itself. A case without vars comes back as it is.
func (p *parser) expandVars(n *yaml.Node) []*yaml.Node {
	if n.Kind != yaml.MappingNode {
		return []*yaml.Node{n}
	}
	varsNode, rest := splitVars(n)
	if varsNode == nil {
		return []*yaml.Node{n}
	}
	vars, ok := p.variables(varsNode)
	if !ok {
		return []*yaml.Node{rest}
	}
	names := make([]string, len(vars))
	for i, v := range vars {
		names[i] = v.name
	}
	// Every placeholder must name a variable: a typo must not reach the
	// model as literal braces.
	p.checkPlaceholders(rest, names)

	var out []*yaml.Node
	idx := make([]int, len(vars))
	for {
		vals, tags := map[string]string{}, map[string]string{}
		var suffix []string
		for i, v := range vars {
			vals[v.name], tags[v.name] = v.values[idx[i]], v.tags[idx[i]]
			suffix = append(suffix, idSafe(v.values[idx[i]]))
		}
		c := substitute(rest, vals, tags, strings.Join(suffix, "-"))
		if p.nodeVars == nil {
			p.nodeVars = map[*yaml.Node]map[string]string{}
		}
		p.nodeVars[c] = vals
		out = append(out, c)
		if !nextCombination(idx, vars) {
			return out
		}
	}
}

// splitVars returns a case's vars: value (nil when it has none) and the
// case without it.
func splitVars(n *yaml.Node) (vars, rest *yaml.Node) {
	rest = &yaml.Node{Kind: yaml.MappingNode, Line: n.Line, Column: n.Column}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := resolve(n.Content[i])
		if k.Kind == yaml.ScalarNode && k.Value == "vars" {
			vars = resolve(n.Content[i+1])
			continue
		}
		rest.Content = append(rest.Content, n.Content[i], n.Content[i+1])
	}
	return vars, rest
}

// variable is one name of vars: with its values.
type variable struct {
	name   string
	values []string
	tags   []string // each value's YAML tag (!!str, !!int…)
}

// variables reads vars:, a mapping of name to a value or a list of values,
// within maxVarCombinations; ok is false after an error.
func (p *parser) variables(n *yaml.Node) (vars []variable, ok bool) {
	if n.Kind != yaml.MappingNode || len(n.Content) == 0 {
		p.errorf(n.Line, "vars must be a mapping of name to a value or a list of values")
		return nil, false
	}
	combos := 1
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := resolve(n.Content[i]), resolve(n.Content[i+1])
		if !varName.MatchString(k.Value) {
			p.errorf(k.Line, "vars: %q is not a variable name (letters, digits and _)", k.Value)
			return nil, false
		}
		vals, tags, ok := p.varValues(k.Value, v)
		if !ok {
			return nil, false
		}
		combos *= len(vals)
		if combos > maxVarCombinations {
			p.errorf(n.Line, "vars expand to more than %d cases; split the case", maxVarCombinations)
			return nil, false
		}
		vars = append(vars, variable{k.Value, vals, tags})
	}
	return vars, true
}

// varValues reads the value or the non-empty list of values of vars.name.
func (p *parser) varValues(name string, v *yaml.Node) (vals, tags []string, ok bool) {
	switch v.Kind {
	case yaml.ScalarNode:
		return []string{v.Value}, []string{v.Tag}, true
	case yaml.SequenceNode:
		for _, item := range v.Content {
			item = resolve(item)
			if item.Kind != yaml.ScalarNode {
				p.errorf(item.Line, "vars.%s: values must be plain text, numbers or booleans", name)
				return nil, nil, false
			}
			vals, tags = append(vals, item.Value), append(tags, item.Tag)
		}
	default:
		p.errorf(v.Line, "vars.%s: want a value or a list of values", name)
		return nil, nil, false
	}
	if len(vals) == 0 {
		p.errorf(v.Line, "vars.%s: the list is empty", name)
		return nil, nil, false
	}
	return vals, tags, true
}

// nextCombination moves idx to the next combination of the values, the
// last variable fastest; it reports false after the last one.
func nextCombination(idx []int, vars []variable) bool {
	for i := len(idx) - 1; i >= 0; i-- {
		idx[i]++
		if idx[i] < len(vars[i].values) {
			return true
		}
		idx[i] = 0
	}
	return false
}

func (p *parser) checkPlaceholders(n *yaml.Node, names []string) {
	if n.Kind == yaml.ScalarNode {
		for _, m := range varPlaceholder.FindAllStringSubmatch(n.Value, -1) {
			if !slices.Contains(names, m[1]) {
				p.errorf(n.Line, "{{%s}} names no variable of vars (have %s)", m[1], strings.Join(names, ", "))
			}
		}
		return
	}
	for i, c := range n.Content {
		if n.Kind == yaml.MappingNode && i%2 == 0 {
			continue // keys are never templated
		}
		p.checkPlaceholders(resolve(c), names)
	}
}

// substitute deep-copies n with the placeholders replaced; the id value
// gets suffix when it has no placeholder of its own. tags are the values'
// YAML tags.
func substitute(n *yaml.Node, vals, tags map[string]string, suffix string) *yaml.Node {
	var walk func(n *yaml.Node, isID bool) *yaml.Node
	walk = func(n *yaml.Node, isID bool) *yaml.Node {
		n = resolve(n)
		c := *n
		c.Alias, c.Anchor = nil, ""
		if n.Kind == yaml.ScalarNode {
			had := varPlaceholder.MatchString(n.Value)
			c.Value = varPlaceholder.ReplaceAllStringFunc(n.Value, func(m string) string {
				name := varPlaceholder.FindStringSubmatch(m)[1]
				if isID {
					return idSafe(vals[name])
				}
				return vals[name]
			})
			if had && !isID {
				// A value that is one placeholder and nothing else keeps the
				// variable's type ("{{limit}}" with limit: [3, 5] is the
				// number 3); anything else is text.
				c.Tag, c.Style = "!!str", yaml.DoubleQuotedStyle
				if m := varPlaceholder.FindStringSubmatch(strings.TrimSpace(n.Value)); m != nil && m[0] == strings.TrimSpace(n.Value) {
					c.Tag = tags[m[1]]
				}
			}
			if isID && !had {
				c.Value += "-" + suffix
			}
			return &c
		}
		c.Content = make([]*yaml.Node, len(n.Content))
		for i, child := range n.Content {
			id := n.Kind == yaml.MappingNode && i%2 == 1 && resolve(n.Content[i-1]).Value == "id"
			if n.Kind == yaml.MappingNode && i%2 == 0 {
				c.Content[i] = child
				continue
			}
			c.Content[i] = walk(child, id)
		}
		return &c
	}
	return walk(n, false)
}

// idSafe makes a value usable inside an id.
func idSafe(v string) string {
	s := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			return r
		}
		return '_'
	}, v)
	if s == "" {
		return "_"
	}
	return s
}
