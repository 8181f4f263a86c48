// Package yamlfile is the one YAML reader of mcp-eval's user files
// (mcp-eval.yaml, the golden file, payloads, waivers, prices), with one
// rule set: the file read through the bounded reader (internal/readfile:
// regular files only, size-bounded), exactly one document, no key twice in
// a mapping, no alias inside its own anchor, at most MaxValues values
// with aliases expanded and MaxDepth levels of nesting, FILE:LINE on every error (yaml.v3's syntax errors
// restated at the line of the mistake), and did-you-mean for unknown keys
// (UnknownKey). It also holds the FILE:LINE error types and whole numbers.
package yamlfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/mcp-eval/mcp-eval/internal/readfile"
	"github.com/mcp-eval/mcp-eval/internal/suggest"
)

// Error is one problem with a YAML file, located by file and line.
type Error struct {
	File string
	Line int // 0 when the problem has no line (an unreadable file)
	Msg  string
	// empty marks Document's error for a file with no document.
	empty bool
	// cause is the error underneath (a missing file), for errors.Is.
	cause error
}

// Unwrap returns the error underneath, if any.
func (e *Error) Unwrap() error { return e.cause }

// Empty reports whether e is Document's error for an empty file (or one of
// comments only), for a reader to which an empty file is no error.
func (e *Error) Empty() bool { return e.empty }

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return e.File + ": " + e.Msg
}

// Errors is every problem found in one pass over a file, in file
// order. errors.As finds each *Error in it.
type Errors []*Error

func (es Errors) Error() string { return strings.Join(es.lines(), "\n") }

func (es Errors) lines() []string {
	s := make([]string, len(es))
	for i, e := range es {
		s[i] = e.Error()
	}
	return s
}

// Unwrap returns the errors, for errors.Is and errors.As.
func (es Errors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

// Read returns the bytes of the file at path, at most limit, through the
// bounded reader (regular files only); what names the file in the error
// ("golden file"), which is an Errors naming path.
func Read(path string, limit int64, what string) ([]byte, error) {
	data, err := readfile.Read(path, limit)
	if err != nil {
		return nil, Errors{{File: path, Msg: "cannot read the " + what + ": " + readfile.Reason(err), cause: err}}
	}
	return data, nil
}

// Int decodes n as a plain whole number (not 1.0, not "1").
func Int(n *yaml.Node) (int, bool) {
	var i int
	if n.Kind != yaml.ScalarNode || n.Tag != "!!int" || n.Decode(&i) != nil {
		return 0, false
	}
	return i, true
}

// syntaxLine matches the position yaml.v3 puts in its syntax errors
// ("yaml: line N: …") and in each of a TypeError's ("line N: …").
var syntaxLine = regexp.MustCompile(`(?s)^(?:yaml: )?line (\d+): (.*)$`)

// Syntax splits an error of yaml.v3's decoder into its line (0 when it
// names none) and its message without the "yaml: " prefix; of a
// *yaml.TypeError it takes the first.
func Syntax(err error) (line int, msg string) {
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		err = errors.New(te.Errors[0])
	}
	if m := syntaxLine.FindStringSubmatch(err.Error()); m != nil {
		line, _ := strconv.Atoi(m[1])
		return line, m[2]
	}
	return 0, strings.TrimPrefix(err.Error(), "yaml: ")
}

// Load reads the file at path (what names it in errors: "golden file") as
// Read does and hands its contents to parse, with path for its messages.
func Load[T any](path string, limit int64, what string, parse func(data []byte, path string) (T, error)) (T, error) {
	data, err := Read(path, limit, what)
	if err != nil {
		var zero T
		return zero, err
	}
	return parse(data, path)
}

// MaxValues bounds the values of one file once its aliases are expanded,
// so that a few bytes of anchors (the "billion laughs") cannot become
// millions of values in whatever reads the file.
const MaxValues = 200_000

// Document decodes data as exactly one YAML document of at most limit bytes
// and returns its root node, checked against the rules every user file
// shares (Check). A larger file, an empty file, a syntax error, a second
// document (---) and a broken rule are an *Error with the line where it has
// one; what names the file in the message ("the golden file"), needs says
// what an empty one lacks.
func Document(file string, data []byte, limit int, what, needs string) (*yaml.Node, *Error) {
	if len(data) > limit {
		return nil, &Error{File: file, Msg: fmt.Sprintf("%s is larger than %s", what, readfile.Size(int64(limit)))}
	}
	empty := &Error{File: file, Msg: fmt.Sprintf("%s is empty; it needs %s", what, needs), empty: true}
	if line := flowDepth(data); line > 0 {
		return nil, depthError(file, line) // before the parser, quadratic in it (depth.go)
	}
	docs, err := decode(data)
	if err != nil {
		line, msg := syntaxAt(data, err)
		return nil, &Error{File: file, Line: line, Msg: "invalid YAML: " + msg}
	}
	if len(docs) > 1 {
		return nil, &Error{File: file, Line: docs[1].Line, Msg: fmt.Sprintf("a second YAML document (---); %s must be one document", what)}
	}
	if len(docs) == 0 || len(docs[0].Content) == 0 {
		return nil, empty
	}
	root := docs[0].Content[0]
	if err := Check(file, root); err != nil {
		return nil, err
	}
	return root, nil
}

// decode decodes every document of data.
func decode(data []byte) ([]*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var docs []*yaml.Node
	for {
		var doc yaml.Node
		if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
			return docs, nil
		} else if err != nil {
			return nil, err
		}
		docs = append(docs, &doc)
	}
}

// syntaxAt is Syntax with the line of the mistake. yaml.v3 names the line
// where the enclosing block or flow collection began (libyaml's context
// mark), which may be many lines above the mistake; the mistake is on the
// first line from which the file's first lines give the same error. An
// unknown anchor, which yaml.v3 reports without a line, is found where it
// is first referred to.
func syntaxAt(data []byte, err error) (line int, msg string) {
	line, msg = Syntax(err)
	if m := unknownAnchor.FindStringSubmatch(msg); m != nil && line == 0 {
		return referenceLine(data, m[1]), msg
	}
	if line == 0 {
		return 0, msg
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	if line > len(lines) {
		return line, msg
	}
	same := func(n int) bool {
		_, err := decode(bytes.Join(lines[:n], nil))
		if err == nil {
			return false
		}
		_, m := Syntax(err)
		return m == msg
	}
	// The lines before the context line parse (or fail otherwise); the
	// first prefix that fails the same way ends at the mistake.
	at := line + sort.Search(len(lines)-line+1, func(i int) bool { return same(line + i) })
	if at > len(lines) || at == line {
		return line, msg
	}
	return at, fmt.Sprintf("%s (in the part that starts at line %d)", msg, line)
}

var unknownAnchor = regexp.MustCompile(`^unknown anchor '(.*)' referenced$`)

// referenceLine is the line of the first *name in data, 0 if none.
func referenceLine(data []byte, name string) int {
	re := regexp.MustCompile(`\*` + regexp.QuoteMeta(name) + `(?:[\s,\]}]|$)`)
	if loc := re.FindIndex(data); loc != nil {
		return bytes.Count(data[:loc[0]], []byte("\n")) + 1
	}
	return 0
}

// Check applies the rules every user file shares to a decoded document:
// no key twice in one mapping (yaml.v3 keeps both, and a reader would
// silently take one), no alias inside the anchor it names (a recursive
// alias: whatever follows it never ends), at most MaxValues values once
// aliases are expanded, and collections nested at most MaxDepth deep.
func Check(file string, root *yaml.Node) *Error {
	c := checker{file: file, size: map[*yaml.Node]int{}, open: map[*yaml.Node]bool{}, depth: map[*yaml.Node]int{}}
	c.count(root)
	c.deep(root)
	return c.err
}

type checker struct {
	file string
	err  *Error
	size map[*yaml.Node]int  // values under a node, aliases expanded
	open map[*yaml.Node]bool // the nodes being counted: an alias to one is a cycle
	// depth memoizes height (depth.go).
	depth map[*yaml.Node]int
}

func (c *checker) fail(line int, format string, args ...any) int {
	if c.err == nil {
		c.err = &Error{File: c.file, Line: line, Msg: fmt.Sprintf(format, args...)}
	}
	return MaxValues + 1
}

// count returns the values under n, aliases expanded, checking each node
// once.
func (c *checker) count(n *yaml.Node) int {
	if c.err != nil {
		return MaxValues + 1
	}
	if v, ok := c.size[n]; ok {
		return v
	}
	if n.Kind == yaml.AliasNode {
		if n.Alias == nil || c.open[n.Alias] {
			return c.fail(n.Line, "recursive alias: *%s is inside the anchor &%s (line %d) it refers to", n.Value, n.Value, anchorLine(n))
		}
		return c.count(n.Alias)
	}
	c.open[n] = true
	total := 1
	if n.Kind == yaml.MappingNode {
		c.duplicates(n)
	}
	for _, child := range n.Content {
		if total += c.count(child); total > MaxValues {
			c.fail(child.Line, "too many values: with its aliases expanded the file holds more than %d", MaxValues)
			break
		}
	}
	delete(c.open, n)
	c.size[n] = total
	return total
}

// duplicates reports the second of two equal keys of mapping m.
func (c *checker) duplicates(m *yaml.Node) {
	first := map[string]int{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := m.Content[i]
		if k.Kind != yaml.ScalarNode || k.ShortTag() == "!!merge" {
			continue
		}
		if line, dup := first[k.Value]; dup {
			c.fail(k.Line, "duplicate key %q (first at line %d)", k.Value, line)
			return
		}
		first[k.Value] = k.Line
	}
}

func anchorLine(alias *yaml.Node) int {
	if alias.Alias != nil {
		return alias.Alias.Line
	}
	return 0
}

// UnknownKey is the message for a key that is not one of known: with the
// nearest known key when it is a likely typo (case aside), else the list.
func UnknownKey(key string, known []string) string {
	if s := suggest.Nearest(strings.ToLower(key), known); s != "" {
		return fmt.Sprintf("unknown key %q (did you mean %q?)", key, s)
	}
	return fmt.Sprintf("unknown key %q (want %s)", key, strings.Join(known, ", "))
}
