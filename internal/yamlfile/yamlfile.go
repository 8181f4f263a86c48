// Package yamlfile is what the readers of mcp-eval's YAML files (the
// golden file, the payload file) share: the FILE:LINE error types, one
// document decoded with its size, empty and multi-document errors, a
// bounded read (Load: read, then parse), whole numbers, and yaml.v3's
// syntax errors restated with their line.
package yamlfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/mcp-eval/mcp-eval/internal/readfile"
)

// Error is one problem with a YAML file, located by file and line.
type Error struct {
	File string
	Line int // 0 when the problem has no line (an unreadable file)
	Msg  string
	// empty marks Document's error for a file with no document.
	empty bool
}

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

// Messages returns the FILE:LINE: message line of each problem in err, in
// order, or nil when err holds no Errors (a test compares them with the
// lines it wants).
func Messages(err error) []string {
	var es Errors
	if !errors.As(err, &es) {
		return nil
	}
	return es.lines()
}

// Unwrap returns the errors, for errors.Is and errors.As.
func (es Errors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

// Read returns up to limit+1 bytes of the file, so that the caller can say
// it is too large in its own words; what names the file in the error ("the
// golden file"), which is an Errors naming path.
func Read(path string, limit int64, what string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, Errors{{File: path, Msg: "cannot read the " + what + ": " + readfile.Reason(err)}}
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, Errors{{File: path, Msg: "cannot read the " + what + ": " + readfile.Reason(err)}}
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

// Document decodes data as exactly one YAML document of at most limit bytes
// and returns its root node. A larger file, an empty file, a syntax error and
// a second document (---) are an *Error with the line where it has one; what
// names the file in the message ("the golden file"), needs says what an
// empty one lacks.
func Document(file string, data []byte, limit int, what, needs string) (*yaml.Node, *Error) {
	if len(data) > limit {
		return nil, &Error{File: file, Msg: fmt.Sprintf("%s is larger than %d MiB", what, limit>>20)}
	}
	empty := &Error{File: file, Msg: fmt.Sprintf("%s is empty; it needs %s", what, needs), empty: true}
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, empty
		}
		line, msg := Syntax(err)
		return nil, &Error{File: file, Line: line, Msg: "invalid YAML: " + msg}
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, &Error{File: file, Line: extra.Line, Msg: fmt.Sprintf("a second YAML document (---); %s must be one document", what)}
	} else if !errors.Is(err, io.EOF) {
		line, msg := Syntax(err)
		return nil, &Error{File: file, Line: line, Msg: "invalid YAML: " + msg}
	}
	if len(doc.Content) == 0 {
		return nil, empty
	}
	return doc.Content[0], nil
}
