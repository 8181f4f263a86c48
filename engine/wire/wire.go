// Package wire validates whole JSON-RPC messages a server sends against a
// JSON Schema of the revision they belong to: every result by the method
// it answers (an input_required result as InputRequiredResult), every
// error by its code, every notification by its method. The schema is
// mcp-eval's own (schema/<revision>.yaml, written from the revision's
// TypeScript definitions); its tests keep it equal to the official
// schema.json on a corpus of valid and invalid messages.
//
// A Recorder is an mcp.Observer and mcp.MessageObserver: attached to the
// transports of a run, it validates every message they receive, in every
// layer, and keeps the violations deduplicated per method and JSON pointer
// for the jsonrpc/wire-schema check. The schema is compiled once per
// process and revision.
//
// It imports mcp (the message types), internal/jsonscan and jsonschema;
// mcp knows nothing of it.
package wire

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/mcp-eval/mcp-eval/internal/jsonscan"
)

// schema/<revision>.yaml is the source; schema/<revision>.json is generated
// from it (go test ./engine/wire -run TestSchemaJSON -update) and is what
// a run loads, since decoding YAML cost more than compiling.
//
//go:embed schema/*.yaml schema/*.json
var schemaFiles embed.FS

// Revisions that have a schema here.
var Revisions = []string{"2026-07-28"}

// The definitions each message is validated against, by what it is. They
// carry the names of schema.ts (and of the official schema.json), so the
// same dispatch applies to both.
var (
	// ResultDefs maps a request method to the definition of its result.
	ResultDefs = map[string]string{
		"server/discover":          "DiscoverResult",
		"tools/list":               "ListToolsResult",
		"tools/call":               "CallToolResult",
		"prompts/list":             "ListPromptsResult",
		"prompts/get":              "GetPromptResult",
		"resources/list":           "ListResourcesResult",
		"resources/templates/list": "ListResourceTemplatesResult",
		"resources/read":           "ReadResourceResult",
		"completion/complete":      "CompleteResult",
		"subscriptions/listen":     "SubscriptionsListenResult",
		// The tasks extension (io.modelcontextprotocol/tasks).
		"tasks/get":    "GetTaskResult",
		"tasks/update": "UpdateTaskResult",
		"tasks/cancel": "CancelTaskResult",
	}
	// TaskResultDef is the result a request may get instead of its own
	// when the server makes it a task (resultType "task").
	TaskResultDef = "CreateTaskResult"
	// NotificationDefs maps a notification method to its definition.
	NotificationDefs = map[string]string{
		"notifications/cancelled":                  "CancelledNotification",
		"notifications/progress":                   "ProgressNotification",
		"notifications/message":                    "LoggingMessageNotification",
		"notifications/resources/updated":          "ResourceUpdatedNotification",
		"notifications/resources/list_changed":     "ResourceListChangedNotification",
		"notifications/tools/list_changed":         "ToolListChangedNotification",
		"notifications/prompts/list_changed":       "PromptListChangedNotification",
		"notifications/subscriptions/acknowledged": "SubscriptionsAcknowledgedNotification",
		"notifications/tasks":                      "TaskStatusNotification",
	}
	// ErrorDefs maps an error code to the error response defined for it.
	ErrorDefs = map[int]string{
		-32020: "HeaderMismatchError",
		-32021: "MissingRequiredClientCapabilityError",
		-32022: "UnsupportedProtocolVersionError",
	}
)

// legacyMethods were removed in 2026-07-28: a dual-era server may answer
// them under its legacy revision (basic/versioning: an initialize request
// selects legacy semantics), so their results are not judged by this
// revision's schema (errors/removed-* judge that they are refused).
var legacyMethods = map[string]bool{
	"initialize": true, "ping": true, "logging/setLevel": true,
	"resources/subscribe": true, "resources/unsubscribe": true,
}

// Violation is one place where a message breaks the schema.
type Violation struct {
	// Def is the definition the message was validated against.
	Def string `json:"def"`
	// Pointer is the JSON pointer of the offending value in the message.
	Pointer string `json:"pointer"`
	// Keyword is the JSON Schema keyword that failed (type, required,
	// const, anyOf, format, minimum…).
	Keyword string `json:"keyword"`
	// Message says what is wrong, in one line.
	Message string `json:"message"`
	// Schema is the location of the failed keyword in the schema.
	Schema string `json:"schema,omitempty"`
}

// Schema is the compiled schema of one revision: each definition a
// message is validated against, by name.
type Schema struct {
	revision string
	defs     map[string]*jsonschema.Schema
}

var compiled sync.Map // revision → *compileOnce

type compileOnce struct {
	once sync.Once
	s    *Schema
	err  error
}

// For returns the compiled schema of revision, compiling it on first use.
func For(revision string) (*Schema, error) {
	v, _ := compiled.LoadOrStore(revision, &compileOnce{})
	c := v.(*compileOnce)
	c.once.Do(func() {
		data, err := schemaFiles.ReadFile("schema/" + revision + ".json")
		if err != nil {
			c.err = fmt.Errorf("wire: no schema of revision %s", revision)
			return
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			c.err = fmt.Errorf("wire: schema/%s.json: %w", revision, err)
			return
		}
		c.s, c.err = compile(revision, doc, trustedBase)
	})
	return c.s, c.err
}

// envelopes are the definitions every message is first validated against
// as a whole; the payload's definition is then applied to its member.
var envelopes = []string{"JSONRPCResultResponse", "JSONRPCErrorResponse", "JSONRPCNotification", "JSONRPCRequest", "InputRequiredResult"}

// Compile compiles doc, a JSON Schema document whose $defs carry the
// definitions named by ResultDefs, NotificationDefs and ErrorDefs (this
// package's own, or the official schema.json in a test), with the formats
// asserted (byte is base64, uri-template RFC 6570's syntax).
func Compile(revision string, doc any) (*Schema, error) {
	return compile(revision, doc, "mcp-eval:wire/")
}

// trustedBase is where For compiles this package's own schema: the
// library checks no document under json-schema.org against its
// metaschema (addRoot in its roots.go), which was half of compiling it
// and 10 ms of every run's start. TestOwnSchemaIsMetaValid
// checks the embedded files against the metaschema instead, once, here.
// The schema's $refs are all fragments, which resolve the same under any
// base.
const trustedBase = "https://json-schema.org/mcp-eval/wire/"

func compile(revision string, doc any, baseDir string) (*Schema, error) {
	base := baseDir + revision + ".json"
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	c.RegisterFormat(&jsonschema.Format{Name: "byte", Validate: validateBase64})
	c.RegisterFormat(&jsonschema.Format{Name: "uri-template", Validate: validateURITemplate})
	if err := c.AddResource(base, doc); err != nil {
		return nil, err
	}
	s := &Schema{revision: revision, defs: map[string]*jsonschema.Schema{}}
	present := map[string]bool{}
	if d, ok := doc.(map[string]any)["$defs"].(map[string]any); ok {
		for name := range d {
			present[name] = true
		}
	}
	names := append([]string(nil), envelopes...)
	names = append(names, TaskResultDef)
	for _, d := range ResultDefs {
		names = append(names, d)
	}
	for _, li := range listItems {
		names = append(names, li.item) // validateSplit
	}
	for _, d := range NotificationDefs {
		names = append(names, d)
	}
	for _, d := range ErrorDefs {
		names = append(names, d)
	}
	for _, d := range names {
		if s.defs[d] != nil || !present[d] {
			// A definition the document lacks (the official schema.json
			// has none of the tasks extension's) falls back to the
			// envelope's.
			continue
		}
		sch, err := c.Compile(base + "#/$defs/" + d)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", d, err)
		}
		s.defs[d] = sch
	}
	return s, nil
}

// Revision returns the revision s validates.
func (s *Schema) Revision() string { return s.revision }

// Validate checks one message; answering is the method of the request a
// response answers ("" when unknown: an orphan, or not a response). It
// returns the violations (none when the message is valid), or an error when
// raw is not JSON at all. Results of the methods 2026-07-28 removed are
// not judged.
func (s *Schema) Validate(answering string, raw []byte) ([]Violation, error) {
	if len(raw) >= splitBytes {
		if out, ok := s.validateSplit(answering, raw); ok {
			return out, nil
		}
	}
	v, ok := jsonscan.Decode(raw)
	if !ok {
		_, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err == nil {
			err = errors.New("not one JSON value") // unreachable: the decoders agree
		}
		return nil, err
	}
	whole, member, payload := s.pick(answering, v)
	if whole == "" {
		return nil, nil
	}
	out := s.check(whole, whole, "", v)
	if member != "" {
		obj, _ := v.(map[string]any)
		if pv, ok := obj[member]; ok {
			out = append(out, s.check(payload, payload, "/"+member, pv)...)
		}
	}
	return dedupe(out), nil
}

// check validates v against the definition name, reporting violations
// under def with pointers below prefix.
func (s *Schema) check(def, name, prefix string, v any) []Violation {
	err := s.defs[name].Validate(v)
	if err == nil {
		return nil
	}
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return []Violation{{Def: def, Pointer: prefix, Message: err.Error()}}
	}
	var out []Violation
	for _, leaf := range leaves(ve) {
		x := violation(def, leaf)
		x.Pointer = prefix + x.Pointer
		out = append(out, x)
	}
	return out
}

// dedupe drops a violation the envelope and the payload both report, and
// sorts them by pointer.
func dedupe(vs []Violation) []Violation {
	seen := map[string]bool{}
	var out []Violation
	for _, v := range vs {
		k := v.Pointer + "\x00" + v.Keyword + "\x00" + v.Message
		if !seen[k] {
			seen[k] = true
			out = append(out, v)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Pointer < out[j].Pointer })
	return out
}

// pick chooses, for a decoded message, the definition of the whole
// message, and the member and definition of its payload when the payload
// has one of its own (a result by the method it answers).
func (s *Schema) pick(answering string, v any) (whole, member, payload string) {
	has := func(d string) bool { return d != "" && s.defs[d] != nil }
	obj, _ := v.(map[string]any)
	if method, ok := obj["method"].(string); ok {
		if _, hasID := obj["id"]; hasID {
			return "JSONRPCRequest", "", ""
		}
		if d := NotificationDefs[method]; has(d) {
			return d, "", ""
		}
		return "JSONRPCNotification", "", ""
	}
	if e, ok := obj["error"].(map[string]any); ok {
		if code, ok := e["code"].(json.Number); ok {
			if n, err := code.Int64(); err == nil {
				if d := ErrorDefs[int(n)]; has(d) {
					return d, "", ""
				}
			}
		}
		return "JSONRPCErrorResponse", "", ""
	}
	if legacyMethods[answering] {
		return "", "", ""
	}
	r, _ := obj["result"].(map[string]any)
	switch r["resultType"] {
	case "input_required":
		return "JSONRPCResultResponse", "result", "InputRequiredResult"
	case "task":
		// tasks/get, tasks/update and tasks/cancel answer with results of
		// their own (resultType complete), never a new task.
		if has(TaskResultDef) && !strings.HasPrefix(answering, "tasks/") {
			return "JSONRPCResultResponse", "result", TaskResultDef
		}
	}
	if d := ResultDefs[answering]; has(d) {
		return "JSONRPCResultResponse", "result", d
	}
	return "JSONRPCResultResponse", "", ""
}

// leaves are the errors worth reporting: the innermost ones, except that a
// union (anyOf, oneOf) none of whose branches matched is reported itself,
// unless exactly one branch agrees with the value's discriminators (its
// type, method or mode constants), in which case that branch's errors are.
func leaves(e *jsonschema.ValidationError) []*jsonschema.ValidationError {
	switch e.ErrorKind.(type) {
	case *kind.AnyOf, *kind.OneOf:
		var plausible []*jsonschema.ValidationError
		for _, c := range e.Causes {
			if !failsConst(c) {
				plausible = append(plausible, c)
			}
		}
		if len(plausible) == 1 {
			return leaves(plausible[0])
		}
		return []*jsonschema.ValidationError{e}
	}
	if len(e.Causes) == 0 {
		return []*jsonschema.ValidationError{e}
	}
	var out []*jsonschema.ValidationError
	for _, c := range e.Causes {
		out = append(out, leaves(c)...)
	}
	return out
}

// failsConst reports whether a branch's error includes a failed const or
// enum: the branch is for another kind of value.
func failsConst(e *jsonschema.ValidationError) bool {
	switch e.ErrorKind.(type) {
	case *kind.Const, *kind.Enum:
		return true
	case *kind.AnyOf, *kind.OneOf:
		return false
	}
	for _, c := range e.Causes {
		if failsConst(c) {
			return true
		}
	}
	return false
}

func violation(def string, e *jsonschema.ValidationError) Violation {
	kw := e.ErrorKind.KeywordPath()
	keyword := ""
	if len(kw) > 0 {
		keyword = kw[len(kw)-1]
	}
	v := Violation{Def: def, Pointer: pointer(e.InstanceLocation), Keyword: keyword, Message: describe(e.ErrorKind)}
	if i := strings.Index(e.SchemaURL, "#"); i >= 0 {
		v.Schema = e.SchemaURL[i:]
	}
	return v
}

// pointer is the RFC 6901 pointer of an instance location.
func pointer(loc []string) string {
	var b strings.Builder
	for _, p := range loc {
		b.WriteByte('/')
		b.WriteString(strings.ReplaceAll(strings.ReplaceAll(p, "~", "~0"), "/", "~1"))
	}
	return b.String()
}

// describe says in one line what an error kind means.
func describe(k jsonschema.ErrorKind) string {
	switch k := k.(type) {
	case *kind.Type:
		return fmt.Sprintf("got %s, want %s", k.Got, strings.Join(k.Want, " or "))
	case *kind.Required:
		return "missing " + strings.Join(k.Missing, ", ")
	case *kind.Const:
		return fmt.Sprintf("got %s, want %s", jsonText(k.Got), jsonText(k.Want))
	case *kind.Enum:
		return fmt.Sprintf("got %s, want one of %s", jsonText(k.Got), jsonText(k.Want))
	case *kind.Format:
		return fmt.Sprintf("%s is not a valid %s", jsonText(k.Got), k.Want)
	case *kind.AnyOf:
		return "matches none of the shapes allowed here"
	case *kind.OneOf:
		return "matches none, or more than one, of the shapes allowed here"
	case *kind.Minimum:
		return fmt.Sprintf("got %s, want at least %s", k.Got.RatString(), k.Want.RatString())
	case *kind.Maximum:
		return fmt.Sprintf("got %s, want at most %s", k.Got.RatString(), k.Want.RatString())
	case *kind.MaxItems:
		return fmt.Sprintf("got %d items, want at most %d", k.Got, k.Want)
	}
	return strings.TrimSpace(fmt.Sprintf("%v", k))
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if len(b) > 80 {
		return string(b[:77]) + "…"
	}
	return string(b)
}

// validateBase64 is the format "byte" (schema.ts @format byte): standard
// base64, padded or not, whitespace not allowed.
func validateBase64(v any) error {
	s, ok := v.(string)
	if !ok {
		return nil
	}
	n := len(s)
	for n > 0 && s[n-1] == '=' {
		n--
	}
	if len(s)-n > 2 || (len(s) > n && len(s)%4 != 0) {
		return fmt.Errorf("bad base64 padding")
	}
	for i := 0; i < n; i++ {
		c := s[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/') {
			return fmt.Errorf("byte %d (%q) is not base64", i, c)
		}
	}
	if n%4 == 1 {
		return fmt.Errorf("base64 of %d characters is truncated", n)
	}
	return nil
}

// validateURITemplate is RFC 6570's syntax (§2): literals, and expressions
// of an optional operator and comma-separated variable names, each with a
// prefix length or an explode modifier. jsonschema's own check parses the
// template as a URL first, which refuses a valid template such as
// note://{id} (its host is an expression).
func validateURITemplate(v any) error {
	s, ok := v.(string)
	if !ok {
		return nil
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '{':
			end := strings.IndexByte(s[i:], '}')
			if end < 0 {
				return fmt.Errorf("expression at %d has no closing brace", i)
			}
			if err := uriTemplateExpr(s[i+1 : i+end]); err != nil {
				return fmt.Errorf("expression at %d: %w", i, err)
			}
			i += end
		case c == '}':
			return fmt.Errorf("closing brace at %d without an opening one", i)
		case c == '%':
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return fmt.Errorf("%% at %d is not a percent-encoding", i)
			}
			i += 2
		case c <= ' ' || c == 0x7f || strings.IndexByte("\"'<>\\^`|", c) >= 0:
			return fmt.Errorf("character %q at %d is not allowed in a literal", c, i)
		}
	}
	return nil
}

func uriTemplateExpr(e string) error {
	if e != "" && strings.IndexByte("+#./;?&=,!@|", e[0]) >= 0 {
		e = e[1:]
	}
	if e == "" {
		return fmt.Errorf("no variable")
	}
	for _, spec := range strings.Split(e, ",") {
		name := spec
		if n, ok := strings.CutSuffix(spec, "*"); ok {
			name = n
		} else if n, max, ok := strings.Cut(spec, ":"); ok {
			name = n
			if max == "" || len(max) > 4 || max[0] == '0' || strings.Trim(max, "0123456789") != "" {
				return fmt.Errorf("prefix length %q is not 1 to 9999", max)
			}
		}
		if name == "" || name[0] == '.' || name[len(name)-1] == '.' || strings.Contains(name, "..") {
			return fmt.Errorf("variable name %q", name)
		}
		for i := 0; i < len(name); i++ {
			c := name[i]
			switch {
			case c == '%':
				if i+2 >= len(name) || !isHex(name[i+1]) || !isHex(name[i+2]) {
					return fmt.Errorf("variable name %q", name)
				}
				i += 2
			case c == '_' || c == '.' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9':
			default:
				return fmt.Errorf("variable name %q", name)
			}
		}
	}
	return nil
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}
