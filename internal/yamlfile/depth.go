package yamlfile

import (
	"fmt"

	"gopkg.in/yaml.v3"
)

// MaxDepth bounds how deep a user file nests collections (sequences and
// mappings, empty ones counted, aliases expanded): no configuration needs
// more than a few levels, and yaml.v3's parser is quadratic in the depth
// of flow collections (a golden file of 9 000-deep "[[[…]]]" cost seconds
// and hundreds of MB per 18 KB before any rule could refuse it).
const MaxDepth = 100

// flowDepth finds, before the parser sees data, the first place where flow
// collections ([ and {) nest more than MaxDepth deep, and returns its line
// (0 when none does). Brackets inside quoted scalars and comments do not
// count; a quote opens a scalar only where one may start (after ": ", "- ",
// "[", "{", "," or at a line's start), so an apostrophe in plain text does
// not. Brackets in plain or block-scalar text count, which for balanced
// text changes nothing.
func flowDepth(data []byte) int {
	depth, line := 0, 1
	var quote byte   // the open quoted scalar's quote, 0 outside one
	var prev byte    // the last byte on this line that was not a space
	comment := false // in a comment, until the line ends
	for i := 0; i < len(data); i++ {
		b := data[i]
		if b == '\n' {
			line++
			prev, comment = 0, false
			continue
		}
		switch {
		case comment:
			continue
		case quote == '"':
			if b == '\\' {
				i++ // the escaped byte (a newline too: line is counted below only outside)
				if i < len(data) && data[i] == '\n' {
					line++
				}
			} else if b == '"' {
				quote = 0
			}
			continue
		case quote == '\'':
			if b == '\'' {
				if i+1 < len(data) && data[i+1] == '\'' {
					i++ // '' is a quote inside the scalar
				} else {
					quote = 0
				}
			}
			continue
		}
		switch b {
		case ' ', '\t', '\r':
			if prev != 0 && i+1 < len(data) && data[i+1] == '#' {
				comment = true
			}
			continue
		case '#':
			if prev == 0 {
				comment = true
				continue
			}
		case '"', '\'':
			switch prev {
			case 0, ':', '-', '[', '{', ',', '?':
				quote = b
			}
		case '[', '{':
			if depth++; depth > MaxDepth {
				return line
			}
		case ']', '}':
			depth = max(0, depth-1)
		}
		prev = b
	}
	return 0
}

// height returns how deep n nests collections (1 for an empty one, 0 for a
// scalar), aliases expanded, memoized like count.
func (c *checker) height(n *yaml.Node) int {
	if n.Kind == yaml.AliasNode {
		if n.Alias == nil {
			return 0
		}
		n = n.Alias
	}
	if h, ok := c.depth[n]; ok {
		return h
	}
	c.depth[n] = 0 // a cycle, which count reports, ends here
	h := 0
	if n.Kind == yaml.SequenceNode || n.Kind == yaml.MappingNode {
		for _, child := range n.Content {
			h = max(h, c.height(child))
			if h >= MaxDepth {
				break
			}
		}
		h++
	} else {
		for _, child := range n.Content { // a document node
			h = max(h, c.height(child))
		}
	}
	c.depth[n] = h
	return h
}

// deep reports a node nested more than MaxDepth deep, at the line of the
// collection where the bound is passed.
func (c *checker) deep(root *yaml.Node) {
	if c.err != nil || c.height(root) <= MaxDepth {
		return
	}
	n, level := root, 1
	for level <= MaxDepth {
		if n.Kind == yaml.AliasNode && n.Alias != nil {
			n = n.Alias
		}
		var next *yaml.Node
		for _, child := range n.Content {
			if c.height(child) >= MaxDepth+1-level {
				next = child
				break
			}
		}
		if next == nil {
			break
		}
		n, level = next, level+1
	}
	c.fail(n.Line, "nested more than %d deep (sequences and mappings, empty ones and aliases counted): not a file mcp-eval reads", MaxDepth)
}

func depthError(file string, line int) *Error {
	return &Error{File: file, Line: line, Msg: fmt.Sprintf("nested more than %d deep (flow [ and { counted, empty ones too): not a file mcp-eval reads", MaxDepth)}
}
