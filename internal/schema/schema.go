// Package schema compiles and applies the JSON Schemas that an MCP server
// publishes as a tool's inputSchema and outputSchema.
//
// Those schemas are untrusted input (MCP 2026-07-28 §JSON Schema Usage,
// https://modelcontextprotocol.io/specification/2026-07-28/basic), so this package wraps
// github.com/santhosh-tekuri/jsonschema/v6 with a loader that refuses every
// URL: a $ref must resolve inside the document or compilation fails, and
// nothing is ever read from the network or the file system. It bounds the
// size, nesting, subschema and regex count, numbers and applicator fan-out
// of a schema, defaults to JSON Schema 2020-12 when $schema is absent, and turns the
// library's errors into an [*Error] with a stable [Kind] and a JSON pointer,
// so that conformance checks can put them into report evidence.
//
// It also checks the x-mcp-header annotations of a tool inputSchema
// ([XMCPHeaders]), and builds the plain arguments that conformance and
// resilience send to a safe tool ([SampleArgs]).
//
// The package imports only the standard library, the JSON Schema library
// and internal/jsonscan (standard library only); it must not import any
// other package of this module.
package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"sort"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/mcp-eval/mcp-eval/internal/jsonscan"
)

// Limits on a schema document, checked before the library sees it. MCP
// 2026-07-28 §JSON Schema Usage says validators SHOULD bound the cost of
// schemas (depth, subschema count, time). Each limit below caps one cost
// measured in the library; together they keep Compile of any input under
// about a second on a busy two-core runner, and the fan-out limit stops the
// exponential $ref/allOf blow-up at validation time.
const (
	// MaxSize is the largest schema document Compile accepts, in bytes.
	MaxSize = 1 << 20
	// MaxDepth is the deepest nesting of JSON objects and arrays Compile
	// accepts; the outermost object or array counts as 1.
	MaxDepth = 64
	// MaxSubschemas bounds the number of schemas (objects and booleans in
	// schema positions) in a document. The library's compile queue looks
	// each new subschema up by a linear scan (queue.get in compiler.go), so
	// compile time grows with the square of this count. The whole MCP
	// 2026-07-28 protocol schema has about 900.
	MaxSubschemas = 5_000
	// MaxPatterns bounds the number of pattern keywords and
	// patternProperties keys. Go compiles a regex with a large counted
	// repetition, such as "c{1,999}", in up to about a millisecond.
	MaxPatterns = 1_000
	// MaxFanout bounds how many schema nodes one instance value can be
	// checked against through in-place applicators ($ref, allOf, anyOf,
	// oneOf, not, if/then/else, dependentSchemas) counted as a tree.
	// A chain of definitions that each apply the next one twice costs 2^n
	// at validation time while staying a few hundred bytes long; this
	// catches it at compile time.
	MaxFanout = 50_000
	// MaxViolations is how many violations a ValidationError or an
	// invalid-schema Error keeps; Total still counts all of them.
	MaxViolations = 20
)

// rootURL names the document being compiled inside the library. It must be an
// absolute hierarchical URL: the library turns a relative location into a
// file path under the working directory, and an opaque URL (urn:…) would
// make every relative $ref resolve to the document itself. The scheme is
// made up, so a relative $ref such as "other.json" resolves to a URL the
// refusing loader rejects, never to a file.
const rootURL = "mcp-eval:///.schema-under-test"

// checkedURL names, for Check, a document surelyMetaValid has checked
// already: under json-schema.org, which the library does not check
// against a metaschema, at a path that names none of its metaschemas.
const checkedURL = "https://json-schema.org/mcp-eval/.schema-under-test"

// Dialect URLs, as written in $schema.
const (
	Draft2020 = "https://json-schema.org/draft/2020-12/schema"
	Draft2019 = "https://json-schema.org/draft/2019-09/schema"
	Draft7    = "http://json-schema.org/draft-07/schema#"
	Draft6    = "http://json-schema.org/draft-06/schema#"
	Draft4    = "http://json-schema.org/draft-04/schema#"
)

// Schema is a compiled schema. It is safe for concurrent use.
type Schema struct {
	sch        *jsonschema.Schema
	dialect    string
	unenforced []string
}

// Dialect returns the dialect the root schema was compiled with: the
// canonical URL of its $schema, or [Draft2020] when $schema is absent.
func (s *Schema) Dialect() string { return s.dialect }

// Unenforced lists, sorted, the regular expressions (pattern and
// patternProperties) that compiled but are not enforced by Validate, each
// with the reason. JSON Schema regexes are ECMA-262; Go's RE2 engine has no
// lookaround or backreferences and caps repetition counts at 1000, so a
// pattern such as zod's email regex would otherwise make a valid schema look
// invalid. Callers should surface these as notes rather than failures.
func (s *Schema) Unenforced() []string { return s.unenforced }

// DecodeJSON decodes one JSON value the way Compile and Validate expect it:
// numbers become json.Number, so integers keep their exact value (an
// "integer" check on 9007199254740993 must not round), and trailing data
// after the value is an error.
func DecodeJSON(raw []byte) (any, error) {
	// What the library's UnmarshalJSON returns, without its reflection;
	// the library says what is wrong with bytes that are not JSON.
	if v, ok := jsonscan.Decode(raw); ok {
		return v, nil
	}
	return jsonschema.UnmarshalJSON(bytes.NewReader(raw))
}

// Compile parses and compiles a schema document. Every error it returns is
// an [*Error]. The default dialect is JSON Schema 2020-12 (MCP 2026-07-28
// §JSON Schema Usage); a $schema naming draft-04, -06, -07 or 2019-09 is
// honoured, and any other $schema is a [KindUnknownDialect] error.
func Compile(raw []byte) (*Schema, error) { return compile(raw, false) }

// Check returns the error Compile returns for raw, or nil, for a caller
// that only needs to know whether the schema compiles (conformance's
// schema checks, which compile every schema of a listing). It compiles as
// Compile does, but a document that certainly conforms to the 2020-12
// metaschema (surelyMetaValid) is not checked against it again by the
// library.
func Check(raw []byte) error {
	_, err := compile(raw, true)
	return err
}

func compile(raw []byte, check bool) (*Schema, error) {
	if len(raw) > MaxSize {
		return nil, &Error{Kind: KindTooLarge,
			Message: fmt.Sprintf("schema is %d bytes; the limit is %d", len(raw), MaxSize)}
	}
	doc, err := DecodeJSON(raw)
	if err != nil {
		return nil, &Error{Kind: KindInvalidJSON, Message: err.Error()}
	}
	a := quickAudit(doc)
	if a.deep {
		if e := scan(doc, "", 1); e != nil {
			return nil, e
		}
	}
	if a.schemas > MaxSubschemas || a.patterns > MaxPatterns {
		if e := checkCounts(doc); e != nil {
			return nil, e
		}
	}
	if a.clamp {
		clampCounts(doc)
	}
	// Checked before the library runs: it resolves any other $schema by
	// loading it as a metaschema, which the refusing loader would report as
	// a failed load rather than as an unknown dialect.
	if a.dialect {
		if e := checkDialects(doc); e != nil {
			return nil, e
		}
	}
	dialect := Draft2020
	if obj, ok := doc.(map[string]any); ok {
		if s, ok := obj["$schema"].(string); ok {
			dialect = knownDialect(s)
		}
	}
	// auditRefs finds nothing in a document whose every $ref surely
	// resolves, and walks it building pointers: a tenth of checking a big
	// server's schemas.
	var refs plainRefs
	if dialect == Draft2020 {
		refs = findPlainRefs(doc)
	}
	if !refs.sure {
		if e := auditRefs(doc, dialect); e != nil {
			return nil, e
		}
	}

	re := &regexpEngine{}
	c := newCompiler(re)
	url := rootURL
	if check && dialect == Draft2020 && surelyMetaValid(doc, re) {
		if surelyCompiles(doc, refs) {
			return nil, nil // Check keeps no schema
		}
		// The library checks no document under json-schema.org against
		// a metaschema (addRoot in its roots.go): these are its own. Only
		// fragment $refs got here, which resolve the same under any URL.
		url = checkedURL
	}
	if err := c.AddResource(url, doc); err != nil {
		return nil, &Error{Kind: KindInvalidSchema, Message: clean(err.Error())}
	}
	sch, err := compileRecovering(c, url)
	if err != nil {
		return nil, classify(err, dialect)
	}
	if e := checkFanout(sch); e != nil {
		return nil, e
	}
	return &Schema{sch: sch, dialect: dialect, unenforced: re.unenforcedList()}, nil
}

// newCompiler returns the library's compiler as every schema is compiled
// here: 2020-12 by default, nothing loaded, regexes through re.
func newCompiler(re *regexpEngine) *jsonschema.Compiler {
	c := jsonschema.NewCompiler()
	// Set explicitly: the library's default is "latest", which may move.
	c.DefaultDraft(jsonschema.Draft2020)
	// The library's default loader reads file URLs (newRoots in roots.go).
	// The spec forbids dereferencing network URIs and says an unresolved
	// external $ref SHOULD make the schema fail (https://modelcontextprotocol.io/specification/2026-07-28/basic); files are refused
	// for the same reason. Metaschemas come from the library's embedded
	// copies and never reach this loader.
	c.UseLoader(refusingLoader{})
	c.UseRegexpEngine(re.compile)
	return c
}

// ErrUnevaluable is wrapped by the errors Validate returns when it cannot
// decide whether the instance matches, as opposed to a [*ValidationError].
var ErrUnevaluable = errors.New("instance cannot be evaluated")

// Validate checks instance, which should come from [DecodeJSON], against the
// schema. It returns nil if the instance matches, a [*ValidationError] if it
// does not, and an error wrapping [ErrUnevaluable] if it cannot tell: the
// instance holds a number too large for exact arithmetic, or the library
// failed.
func (s *Schema) Validate(instance any) (err error) {
	if ptr, n, ok := hugeNumber(instance, ""); ok {
		return fmt.Errorf("at %s: %s: %w", displayPointer(ptr), numberMessage(n), ErrUnevaluable)
	}
	// The schema and the instance both come from the server under test; a
	// library panic on some input nobody foresaw must fail this one check,
	// not the whole evaluation run.
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%s: %v: %w", libraryPanic, r, ErrUnevaluable)
		}
	}()
	err = s.sch.Validate(instance)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return &ValidationError{Violations: []Violation{{Message: err.Error()}}, Total: 1}
	}
	vs := flatten(ve)
	return &ValidationError{Violations: capViolations(vs), Total: len(vs)}
}

// libraryPanic starts the message of an error made from a panic in the
// JSON Schema library.
const libraryPanic = "the JSON Schema library failed"

// compileRecovering turns a library panic into a KindInternal error, for
// the reason given in Validate.
func compileRecovering(c *jsonschema.Compiler, url string) (sch *jsonschema.Schema, err error) {
	defer func() {
		if r := recover(); r != nil {
			sch, err = nil, &Error{Kind: KindInternal, Message: fmt.Sprintf("%s: %v", libraryPanic, r)}
		}
	}()
	return c.Compile(url)
}

// refusingLoader is the compiler's only URL loader; see Compile.
type refusingLoader struct{}

var errRefused = errors.New("mcp-eval does not load schemas from the network or the file system")

func (refusingLoader) Load(string) (any, error) { return nil, errRefused }

// Numbers are compared exactly, as math/big.Rat values, which the library
// parses from the decimal text on every use. Parsing costs grow fast with
// the digits and the exponent (1e999999 takes about 25ms, a million digits
// about 1.5s), and beyond an exponent of about 1e6 parsing fails and the
// library dereferences a nil *big.Rat. No schema or tool result needs more
// than this.
const (
	maxNumberLen      = 1000
	maxNumberExponent = 10000
)

// scan walks doc in sorted key order and returns an error for the first
// value nested deeper than MaxDepth containers or the first number too
// costly to evaluate.
func scan(v any, ptr string, depth int) *Error {
	switch v := v.(type) {
	case map[string]any:
		if depth > MaxDepth {
			return &Error{Kind: KindTooDeep, Pointer: ptr,
				Message: fmt.Sprintf("schema nests objects and arrays more than %d deep", MaxDepth)}
		}
		for _, k := range sortedKeys(v) {
			if e := scan(v[k], ptr+"/"+escapeToken(k), depth+1); e != nil {
				return e
			}
		}
	case []any:
		if depth > MaxDepth {
			return &Error{Kind: KindTooDeep, Pointer: ptr,
				Message: fmt.Sprintf("schema nests objects and arrays more than %d deep", MaxDepth)}
		}
		for i, e := range v {
			if e := scan(e, ptr+"/"+strconv.Itoa(i), depth+1); e != nil {
				return e
			}
		}
	case json.Number:
		if numberTooBig(string(v)) {
			return &Error{Kind: KindTooLarge, Pointer: ptr, Message: numberMessage(string(v))}
		}
	}
	return nil
}

// hugeNumber returns the pointer of the first number in an instance that
// numberTooBig rejects. Unlike scan it has no depth limit: encoding/json
// already stops at 10000 levels, and instances may be deeper than schemas.
func hugeNumber(v any, ptr string) (string, string, bool) {
	switch v := v.(type) {
	case map[string]any:
		for _, k := range sortedKeys(v) {
			if p, n, ok := hugeNumber(v[k], ptr+"/"+escapeToken(k)); ok {
				return p, n, true
			}
		}
	case []any:
		for i, e := range v {
			if p, n, ok := hugeNumber(e, ptr+"/"+strconv.Itoa(i)); ok {
				return p, n, true
			}
		}
	case json.Number:
		if numberTooBig(string(v)) {
			return ptr, string(v), true
		}
	}
	return "", "", false
}

func numberTooBig(n string) bool {
	if len(n) > maxNumberLen {
		return true
	}
	i := strings.IndexAny(n, "eE")
	if i < 0 {
		return false
	}
	exp, err := strconv.Atoi(n[i+1:])
	return err != nil || exp > maxNumberExponent || exp < -maxNumberExponent
}

func numberMessage(n string) string {
	if len(n) > 40 {
		n = n[:20] + "…" + n[len(n)-10:]
	}
	return fmt.Sprintf("number %s is too large to evaluate exactly (limits: %d characters, exponent within ±%d)",
		n, maxNumberLen, maxNumberExponent)
}

// flatten turns the library's error tree into its leaves, which carry the
// actual reasons; the inner nodes only say "allOf failed" or "validation
// failed". Leaves are sorted and deduplicated because the library walks Go
// maps, so its order differs from run to run.
func flatten(ve *jsonschema.ValidationError) []Violation {
	var out []Violation
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			out = append(out, Violation{Location: pointer(e.InstanceLocation), Message: leafMessage(e)})
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	sort.Slice(out, func(i, j int) bool {
		if out[i].Location != out[j].Location {
			return out[i].Location < out[j].Location
		}
		return out[i].Message < out[j].Message
	})
	uniq := out[:0]
	for i, v := range out {
		if i == 0 || v != out[i-1] {
			uniq = append(uniq, v)
		}
	}
	return uniq
}

// leafMessage returns the library's English message for one leaf. The
// library only renders messages through a golang.org/x/text printer it keeps
// unexported; rendering a copy of the leaf with an empty location and
// cutting the fixed prefix that location produces (emptyLocationPrefix)
// gets the message without taking that module on as a direct dependency.
func leafMessage(e *jsonschema.ValidationError) string {
	if msg, ok := numericMessage(e.ErrorKind); ok {
		return msg
	}
	msg := (&jsonschema.ValidationError{ErrorKind: e.ErrorKind}).Error()
	if m, ok := strings.CutPrefix(msg, emptyLocationPrefix); ok {
		msg = m
	}
	return clean(msg)
}

// numericMessage renders the bound keywords itself. The library converts
// both numbers to float64 and prints them through a localizing printer, so
// 9007199254740993 comes out as "9.007199254740992 × 10¹⁵": rounded, and
// with non-ASCII spacing that reads badly in a report.
func numericMessage(k jsonschema.ErrorKind) (string, bool) {
	var name string
	var got, want *big.Rat
	switch k := k.(type) {
	case *kind.Minimum:
		name, got, want = "minimum", k.Got, k.Want
	case *kind.Maximum:
		name, got, want = "maximum", k.Got, k.Want
	case *kind.ExclusiveMinimum:
		name, got, want = "exclusiveMinimum", k.Got, k.Want
	case *kind.ExclusiveMaximum:
		name, got, want = "exclusiveMaximum", k.Got, k.Want
	case *kind.MultipleOf:
		name, got, want = "multipleOf", k.Got, k.Want
	default:
		return "", false
	}
	if got == nil || want == nil {
		return "", false
	}
	return fmt.Sprintf("%s: got %s, want %s", name, ratString(got), ratString(want)), true
}

// ratString prints r exactly. Every JSON number is a decimal fraction, so
// its denominator is 2^a·5^b and max(a, b) decimal places are exact; the
// number limits in scan keep that short.
func ratString(r *big.Rat) string {
	if r.IsInt() {
		return r.Num().String()
	}
	d := new(big.Int).Set(r.Denom())
	places := 0
	for _, p := range []int64{2, 5} {
		n := 0
		for m := new(big.Int); ; n++ {
			q, rem := new(big.Int).QuoRem(d, big.NewInt(p), m)
			if rem.Sign() != 0 {
				break
			}
			d = q
		}
		places = max(places, n)
	}
	if d.Cmp(big.NewInt(1)) != 0 {
		f, _ := r.Float64()
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	return r.FloatString(places)
}

// emptyLocationPrefix is how the library starts the message of an error at
// the root of the instance (ValidationError.display in output.go).
const emptyLocationPrefix = "at '': "

func capViolations(vs []Violation) []Violation {
	if len(vs) > MaxViolations {
		return vs[:MaxViolations:MaxViolations]
	}
	return vs
}

// clean removes the internal document URL from library messages so that
// locations read as "#/$defs/x".
func clean(msg string) string {
	return strings.ReplaceAll(strings.ReplaceAll(msg, rootURL, ""), checkedURL, "")
}

func pointer(tokens []string) string {
	var sb strings.Builder
	for _, t := range tokens {
		sb.WriteByte('/')
		sb.WriteString(escapeToken(t))
	}
	return sb.String()
}

// escapeToken escapes one JSON pointer reference token (RFC 6901 §3).
func escapeToken(t string) string {
	if !strings.ContainsAny(t, "~/") {
		return t
	}
	return strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1")
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
