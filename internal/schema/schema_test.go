package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcp-eval/mcp-eval/internal/mcptest"
)

// addressSchema is the $defs/$anchor/$ref example from the brief: both refs
// must resolve without any loading.
const addressSchema = `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",
 "$defs":{"address":{"$anchor":"addressDef","type":"object","properties":{"street":{"type":"string"}}}},
 "properties":{"address":{"$ref":"#/$defs/address"},"a2":{"$ref":"#addressDef"}}}`

// compileValidCases compile (TestCompileValid); TestCheckAsCompile
// holds Check to Compile on them too.
var compileValidCases = []struct {
	name        string
	schema      string
	wantDialect string
}{
	{"defs anchor ref", addressSchema, Draft2020},
	{"no $schema defaults to 2020-12", `{"type":"object","properties":{"q":{"type":"string"}}}`, Draft2020},
	{"empty object", `{}`, Draft2020},
	{"boolean true", `true`, Draft2020},
	{"boolean false", `false`, Draft2020},
	{"allOf if then else", `{"type":"object",
		"allOf":[{"properties":{"kind":{"enum":["a","b"]}}},{"required":["kind"]}],
		"if":{"properties":{"kind":{"const":"a"}}},
		"then":{"required":["alpha"]},
		"else":{"required":["beta"]}}`, Draft2020},
	{"oneOf anyOf not", `{"oneOf":[{"type":"string"},{"type":"integer"}],"anyOf":[{"minLength":1},{"minimum":0}],"not":{"const":""}}`, Draft2020},
	{"recursive tree", `{"type":"object","properties":{"value":{"type":"integer"},
		"children":{"type":"array","items":{"$ref":"#"}}}}`, Draft2020},
	{"dynamicRef to dynamicAnchor", `{"$id":"https://example.com/tree","$dynamicAnchor":"node","type":"object",
		"properties":{"data":true,"children":{"type":"array","items":{"$dynamicRef":"#node"}}}}`, Draft2020},
	{"embedded resources by $id", `{"$id":"https://example.com/root.json",
		"$defs":{"a":{"$id":"a.json","type":"string"},"b":{"$id":"https://example.com/b.json","$anchor":"bee","type":"integer"}},
		"properties":{"x":{"$ref":"a.json"},"y":{"$ref":"https://example.com/b.json"},"z":{"$ref":"b.json#bee"}}}`, Draft2020},
	{"urn $id", `{"$id":"urn:example:tool","$defs":{"s":{"type":"string"}},"properties":{"s":{"$ref":"#/$defs/s"}}}`, Draft2020},
	{"escaped pointer", `{"$defs":{"a/b":{"type":"string"},"c~d":{"type":"string"},"sp ace":{"type":"string"}},
		"properties":{"x":{"$ref":"#/$defs/a~1b"},"y":{"$ref":"#/$defs/c~0d"},"z":{"$ref":"#/$defs/sp%20ace"}}}`, Draft2020},
	{"ref into items array", `{"prefixItems":[{"type":"string"},{"type":"integer"}],"properties":{"x":{"$ref":"#/prefixItems/1"}}}`, Draft2020},
	{"property named $ref is not a ref", `{"type":"object","properties":{"$ref":{"type":"string"},"x-mcp-header":{"type":"string"}}}`, Draft2020},
	{"refs inside const and default are data", `{"const":{"$ref":"https://example.com/x.json"},"default":{"$ref":"file:///etc/passwd"},
		"examples":[{"$schema":"https://example.com/custom"}]}`, Draft2020},
	{"draft-07 zod style root ref", `{"$schema":"http://json-schema.org/draft-07/schema#","$ref":"#/definitions/Args",
		"definitions":{"Args":{"type":"object","properties":{"n":{"type":"integer"},"tags":{"$ref":"#/definitions/Tags"}}},
		"Tags":{"type":"array","items":{"type":"string"}}}}`, Draft7},
	{"draft-07 no fragment", `{"$schema":"http://json-schema.org/draft-07/schema","type":"object"}`, Draft7},
	{"draft-07 https", `{"$schema":"https://json-schema.org/draft-07/schema#","type":"object"}`, Draft7},
	{"draft-04 id anchor", `{"$schema":"http://json-schema.org/draft-04/schema#",
		"definitions":{"n":{"id":"#num","type":"number"}},"properties":{"x":{"$ref":"#num"}}}`, Draft4},
	{"draft-07 ignores the $id next to a $ref", `{"$schema":"http://json-schema.org/draft-07/schema#",
		"properties":{"a":{"$id":"https://example.com/a.json","$ref":"#/definitions/x"}},"definitions":{"x":{}}}`, Draft7},
	{"draft-06", `{"$schema":"http://json-schema.org/draft-06/schema#","propertyNames":{"maxLength":3}}`, Draft6},
	{"2019-09 recursiveRef", `{"$schema":"https://json-schema.org/draft/2019-09/schema","$recursiveAnchor":true,
		"type":"object","additionalProperties":{"$recursiveRef":"#"}}`, Draft2019},
	{"unicode escape in pattern", `{"type":"string","pattern":"^[\\u0041-\\u005A]+$"}`, Draft2020},
	{"lookahead pattern is kept but unenforced", `{"type":"string","format":"email",
		"pattern":"^(?!\\.)(?!.*\\.\\.)([A-Za-z0-9_'+\\-\\.]*)[A-Za-z0-9_+-]@([A-Za-z0-9][A-Za-z0-9\\-]*\\.)+[A-Za-z]{2,}$"}`, Draft2020},
	{"large integers keep precision", `{"type":"integer","maximum":9007199254740993,"multipleOf":1e-400}`, Draft2020},
}

func TestCompileValid(t *testing.T) {
	t.Parallel()
	tests := compileValidCases
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, err := Compile([]byte(tt.schema))
			if err != nil {
				t.Fatalf("Compile: %v", err)
			}
			if got := s.Dialect(); got != tt.wantDialect {
				t.Errorf("Dialect() = %q, want %q", got, tt.wantDialect)
			}
		})
	}
}

// compileErrorCases fail to compile (TestCompileErrors); TestCheckAsCompile
// holds Check to Compile on them too.
var compileErrorCases = []struct {
	name    string
	schema  string
	want    Kind
	pointer string
	ref     string
	msg     string // substring of Message
}{
	{name: "misspelt type", schema: `{"type":"strnig"}`, want: KindInvalidSchema, pointer: "/type",
		msg: "not a valid JSON Schema 2020-12 schema: got string, want array; value must be one of"},
	{name: "properties not an object", schema: `{"properties":5}`, want: KindInvalidSchema, pointer: "/properties",
		msg: "got number, want object"},
	{name: "nested invalid", schema: `{"properties":{"a":{"minLength":-1}}}`, want: KindInvalidSchema,
		pointer: "/properties/a/minLength"},
	{name: "draft-07 invalid", schema: `{"$schema":"http://json-schema.org/draft-07/schema#","required":"a"}`,
		want: KindInvalidSchema, pointer: "/required", msg: "not a valid JSON Schema draft-07 schema"},
	{name: "ref to a non-schema", schema: `{"required":["a"],"properties":{"x":{"$ref":"#/required/0"}}}`,
		want: KindInvalidSchema, pointer: "/required/0", msg: "got string, want boolean or object"},
	{name: "root is a string", schema: `"object"`, want: KindInvalidSchema, msg: "got string, want boolean or object"},
	{name: "bad regex", schema: `{"pattern":"(abc"}`, want: KindInvalidSchema, pointer: "/pattern", msg: "missing closing )"},
	{name: "duplicate anchor", schema: `{"$defs":{"a":{"$anchor":"x"},"b":{"$anchor":"x"}}}`, want: KindInvalidSchema,
		msg: "duplicate anchor"},
	{name: "not json", schema: `{"type":`, want: KindInvalidJSON},
	{name: "trailing data", schema: `{} {}`, want: KindInvalidJSON},
	{name: "empty input", schema: ``, want: KindInvalidJSON},

	{name: "missing pointer", schema: `{"properties":{"a":{"$ref":"#/$defs/missing"}}}`, want: KindUnresolvedRef,
		pointer: "/properties/a/$ref", ref: "#/$defs/missing", msg: `nothing at "/$defs/missing"`},
	{name: "missing anchor", schema: `{"items":{"$ref":"#nope"}}`, want: KindUnresolvedRef,
		pointer: "/items/$ref", ref: "#nope", msg: `no anchor "nope"`},
	{name: "bad ref in unused $defs", schema: `{"$defs":{"unused":{"$ref":"#/$defs/gone"}}}`, want: KindUnresolvedRef,
		pointer: "/$defs/unused/$ref"},
	{name: "first bad ref in walk order", schema: `{"properties":{"b":{"$ref":"#/b"},"a":{"$ref":"https://example.com/a"}}}`,
		want: KindExternalRef, pointer: "/properties/a/$ref"},
	{name: "anchor of another resource", schema: `{"$defs":{"r":{"$id":"https://example.com/r","$anchor":"inner"}},"$ref":"#inner"}`,
		want: KindUnresolvedRef, pointer: "/$ref"},
	{name: "bad escape in ref", schema: `{"$ref":"#/%zz"}`, want: KindUnresolvedRef, pointer: "/$ref", msg: "not a valid URI reference"},

	{name: "https ref", schema: `{"properties":{"a":{"$ref":"https://example.com/s.json#/$defs/a"}}}`, want: KindExternalRef,
		pointer: "/properties/a/$ref", ref: "https://example.com/s.json#/$defs/a", msg: "outside this schema"},
	{name: "file ref", schema: `{"$ref":"file:///etc/passwd"}`, want: KindExternalRef, pointer: "/$ref", ref: "file:///etc/passwd"},
	{name: "relative name", schema: `{"$ref":"other.json"}`, want: KindExternalRef, pointer: "/$ref",
		msg: `$ref "other.json" names another document`},
	{name: "relative to $id", schema: `{"$id":"https://example.com/root.json","properties":{"a":{"$ref":"b.json"}}}`,
		want: KindExternalRef, pointer: "/properties/a/$ref", msg: `resolves to "https://example.com/b.json"`},
	{name: "$id pointing at a file dir", schema: `{"$id":"file:///etc/","$ref":"passwd"}`, want: KindExternalRef,
		msg: `resolves to "file:///etc/passwd"`},
	{name: "metaschema ref", schema: `{"$ref":"https://json-schema.org/draft/2020-12/schema"}`, want: KindExternalRef},
	{name: "dynamicRef elsewhere", schema: `{"$dynamicRef":"https://example.com/x#meta"}`, want: KindExternalRef,
		pointer: "/$dynamicRef", msg: "$dynamicRef"},

	{name: "unknown dialect", schema: `{"$schema":"https://example.com/custom-meta"}`, want: KindUnknownDialect,
		pointer: "/$schema", msg: `"https://example.com/custom-meta" is not a supported dialect`},
	{name: "draft-03", schema: `{"$schema":"http://json-schema.org/draft-03/schema#"}`, want: KindUnknownDialect},
	{name: "nested unknown dialect", schema: `{"properties":{"a":{"$schema":"https://example.com/m","$id":"https://example.com/a"}}}`,
		want: KindUnknownDialect, pointer: "/properties/a/$schema"},
	{name: "metaschema with fragment", schema: `{"$schema":"https://json-schema.org/draft/2020-12/schema#/x"}`, want: KindUnknownDialect},

	{name: "too deep", schema: strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1), want: KindTooDeep,
		pointer: "/" + strings.TrimSuffix(strings.Repeat("0/", MaxDepth), "/")},
	{name: "too large", schema: `{"description":"` + strings.Repeat("x", MaxSize) + `"}`, want: KindTooLarge},
	{name: "doubling chain", schema: doublingChain(20), want: KindTooComplex, pointer: ""},
	{name: "too many subschemas", schema: manyProperties(MaxSubschemas, `{}`), want: KindTooLarge,
		pointer: fmt.Sprintf("/properties/p%05d", MaxSubschemas-1), msg: "subschemas"},
	{name: "too many patterns", schema: manyProperties(MaxPatterns+1, `{"pattern":"^a$"}`), want: KindTooLarge,
		pointer: fmt.Sprintf("/properties/p%05d", MaxPatterns), msg: "regular expressions"},
	{name: "huge exponent", schema: `{"maximum":1e999999}`, want: KindTooLarge, pointer: "/maximum",
		msg: "number 1e999999 is too large to evaluate exactly"},
	{name: "huge exponent in data", schema: `{"enum":["a",{"x":[1e-20000]}]}`, want: KindTooLarge, pointer: "/enum/1/x/0"},
	{name: "too many digits", schema: `{"const":` + strings.Repeat("9", 1001) + `}`, want: KindTooLarge, pointer: "/const"},
}

func TestCompileErrors(t *testing.T) {
	t.Parallel()
	tests := compileErrorCases
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, err := Compile([]byte(tt.schema))
			if err == nil {
				t.Fatalf("Compile succeeded (dialect %s), want %s error", s.Dialect(), tt.want)
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error is %T, want *Error: %v", err, err)
			}
			if e.Kind != tt.want {
				t.Errorf("Kind = %q, want %q (%v)", e.Kind, tt.want, e)
			}
			if tt.pointer != "" && e.Pointer != tt.pointer {
				t.Errorf("Pointer = %q, want %q (%v)", e.Pointer, tt.pointer, e)
			}
			if tt.ref != "" && e.Ref != tt.ref {
				t.Errorf("Ref = %q, want %q", e.Ref, tt.ref)
			}
			if !strings.Contains(e.Message, tt.msg) {
				t.Errorf("Message = %q, want it to contain %q", e.Message, tt.msg)
			}
			if strings.Contains(err.Error(), rootURL) {
				t.Errorf("error leaks the internal document URL: %v", err)
			}
		})
	}
}

// doublingChain builds n definitions where each applies the next twice, so
// validating one value would cost 2^n evaluations.
func doublingChain(n int) string {
	var sb strings.Builder
	sb.WriteString(`{"$ref":"#/$defs/d0","$defs":{`)
	for i := range n {
		fmt.Fprintf(&sb, `"d%d":{"allOf":[{"$ref":"#/$defs/d%d"},{"$ref":"#/$defs/d%d"}]},`, i, i+1, i+1)
	}
	fmt.Fprintf(&sb, `"d%d":{"type":"string"}}}`, n)
	return sb.String()
}

// manyProperties builds a schema whose properties p00000… all have the
// given schema; the root counts as one more subschema.
func manyProperties(n int, prop string) string {
	var props []string
	for i := range n {
		props = append(props, fmt.Sprintf(`"p%05d":%s`, i, prop))
	}
	return `{"properties":{` + strings.Join(props, ",") + `}}`
}

func TestLimitsAreInclusive(t *testing.T) {
	t.Parallel()
	for name, raw := range map[string]string{
		"subschemas": manyProperties(MaxSubschemas-1, `true`),
		"patterns":   manyProperties(MaxPatterns, `{"pattern":"^a$"}`),
		"depth":      strings.Repeat(`{"not":`, MaxDepth-1) + `{}` + strings.Repeat(`}`, MaxDepth-1),
		"number":     `{"maximum":1e10000,"minimum":-` + strings.Repeat("9", 999) + `}`,
	} {
		if _, err := Compile([]byte(raw)); err != nil {
			t.Errorf("%s at the limit: Compile: %v", name, err)
		}
	}
}

func TestFanoutBelowLimit(t *testing.T) {
	t.Parallel()
	// 2^12 evaluations is well inside MaxFanout and must compile.
	if _, err := Compile([]byte(doublingChain(12))); err != nil {
		t.Fatalf("Compile: %v", err)
	}
}

func TestInvalidSchemaViolations(t *testing.T) {
	t.Parallel()
	_, err := Compile([]byte(`{"type":"strnig","properties":5}`))
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("got %v, want *Error", err)
	}
	want := []Violation{
		{"/properties", "got number, want object"},
		{"/type", "got string, want array"},
		{"/type", "value must be one of 'array', 'boolean', 'integer', 'null', 'number', 'object', 'string'"},
	}
	if diff := cmp.Diff(want, e.Violations); diff != "" {
		t.Errorf("Violations mismatch (-want +got):\n%s", diff)
	}
	if e.Total != 3 || e.Pointer != "/properties" {
		t.Errorf("Total, Pointer = %d, %q; want 3, %q", e.Total, e.Pointer, "/properties")
	}
}

// TestNoNetwork serves a valid schema over HTTP and checks that no ref,
// $id base, $dynamicRef or $schema ever makes a request.
func TestNoNetwork(t *testing.T) {
	t.Parallel()
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		w.Header().Set("Content-Type", "application/schema+json")
		fmt.Fprint(w, `{"$defs":{"a":{"type":"string"}},"type":"string"}`)
	}))
	t.Cleanup(srv.Close)

	tests := []struct {
		name   string
		schema string
		want   Kind
	}{
		{"absolute ref", `{"properties":{"a":{"$ref":"` + srv.URL + `/s.json"}}}`, KindExternalRef},
		{"ref with pointer", `{"$ref":"` + srv.URL + `/s.json#/$defs/a"}`, KindExternalRef},
		{"relative to $id", `{"$id":"` + srv.URL + `/root.json","$ref":"s.json"}`, KindExternalRef},
		{"dynamicRef", `{"$dynamicRef":"` + srv.URL + `/s.json#a"}`, KindExternalRef},
		{"$schema", `{"$schema":"` + srv.URL + `/meta.json"}`, KindUnknownDialect},
		{"ref in unused defs", `{"$defs":{"x":{"$ref":"` + srv.URL + `/s.json"}}}`, KindExternalRef},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Compile([]byte(tt.schema))
			var e *Error
			if !errors.As(err, &e) || e.Kind != tt.want {
				t.Errorf("Compile error = %v, want kind %s", err, tt.want)
			}
		})
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("the test server got %d requests, want 0", n)
	}
}

// TestNoFileRead puts a valid schema on disk and refers to it in every way a
// file could be reached. Had any of them been read, Compile would succeed.
func TestNoFileRead(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "defs.json")
	if err := os.WriteFile(path, []byte(`{"$defs":{"a":{"type":"string"}},"type":"string"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	// Relative names must not be looked up in the working directory either.
	t.Chdir(dir)
	fileURL := "file://" + filepath.ToSlash(path)
	tests := []struct {
		name   string
		schema string
	}{
		{"file url", `{"$ref":"` + fileURL + `"}`},
		{"file url with pointer", `{"$ref":"` + fileURL + `#/$defs/a"}`},
		{"relative name", `{"$ref":"defs.json"}`},
		{"dot relative name", `{"$ref":"./defs.json#/$defs/a"}`},
		{"absolute path", `{"$ref":"` + filepath.ToSlash(path) + `"}`},
		{"file $id base", `{"$id":"file://` + filepath.ToSlash(dir) + `/","$ref":"defs.json"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Compile([]byte(tt.schema))
			var e *Error
			if !errors.As(err, &e) || e.Kind != KindExternalRef {
				t.Errorf("Compile error = %v, want kind %s", err, KindExternalRef)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	s, err := Compile([]byte(`{"type":"object","additionalProperties":false,
		"required":["location","units"],
		"properties":{
			"location":{"type":"string","minLength":2},
			"days":{"type":"integer","minimum":1,"maximum":14},
			"units":{"enum":["metric","imperial"]},
			"tags":{"type":"array","items":{"type":"string"}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		instance string
		want     []Violation // nil: valid
	}{
		{"valid", `{"location":"Oslo","units":"metric","days":3}`, nil},
		{"integer as float", `{"location":"Oslo","units":"metric","days":3.0}`, nil},
		{"several problems", `{"location":"X","days":1.5,"tags":["a",2],"extra":true}`, []Violation{
			{"", "additional properties 'extra' not allowed"},
			{"", "missing property 'units'"},
			{"/days", "got number, want integer"},
			{"/location", "minLength: got 1, want 2"},
			{"/tags/1", "got number, want string"},
		}},
		{"not an object", `[]`, []Violation{{"", "got array, want object"}}},
		{"big integer", `{"location":"Oslo","units":"metric","days":9007199254740993}`, []Violation{
			{"/days", "maximum: got 9007199254740993, want 14"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			inst, err := DecodeJSON([]byte(tt.instance))
			if err != nil {
				t.Fatal(err)
			}
			err = s.Validate(inst)
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("Validate = %v, want *ValidationError", err)
			}
			if diff := cmp.Diff(tt.want, ve.Violations); diff != "" {
				t.Errorf("Violations mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestValidateUnevaluable(t *testing.T) {
	t.Parallel()
	s, err := Compile([]byte(`{"type":"object","properties":{"days":{"type":"integer","maximum":14}}}`))
	if err != nil {
		t.Fatal(err)
	}
	v, err := DecodeJSON([]byte(`{"days":1e999999}`))
	if err != nil {
		t.Fatal(err)
	}
	err = s.Validate(v)
	var ve *ValidationError
	if !errors.Is(err, ErrUnevaluable) || errors.As(err, &ve) {
		t.Fatalf("Validate = %v, want an error wrapping ErrUnevaluable and no *ValidationError", err)
	}
	want := "at /days: number 1e999999 is too large to evaluate exactly (limits: 1000 characters, exponent within ±10000): instance cannot be evaluated"
	if err.Error() != want {
		t.Errorf("Validate = %q\nwant %q", err, want)
	}
}

func TestNumbersAreExact(t *testing.T) {
	t.Parallel()
	tests := []struct {
		schema, instance string
		want             string // "" means valid
	}{
		{`{"multipleOf":0.0001}`, `1.0000000000000000000000000001`,
			"multipleOf: got 1.0000000000000000000000000001, want 0.0001"},
		{`{"multipleOf":0.01}`, `19.99`, ""},
		{`{"exclusiveMinimum":0.1}`, `0.1`, "exclusiveMinimum: got 0.1, want 0.1"},
		{`{"minimum":-1.5e3}`, `-1500.5`, "minimum: got -1500.5, want -1500"},
		// Counts above MaxInt64 wrap to negative in the library; Compile
		// clamps them.
		{`{"maxItems":18446744073709551615}`, `[1,2]`, ""},
		{`{"maxLength":1e20}`, `"ab"`, ""},
		{`{"minProperties":18446744073709551617}`, `{"a":1}`, "minProperties: got 1, want 9,223,372,036,854,775,807"},
	}
	for _, tt := range tests {
		s, err := Compile([]byte(tt.schema))
		if err != nil {
			t.Fatalf("Compile(%s): %v", tt.schema, err)
		}
		v, err := DecodeJSON([]byte(tt.instance))
		if err != nil {
			t.Fatal(err)
		}
		var got string
		var ve *ValidationError
		if err := s.Validate(v); errors.As(err, &ve) {
			got = ve.Violations[0].Message
		} else if err != nil {
			t.Fatalf("Validate = %v, want nil or *ValidationError", err)
		}
		if got != tt.want {
			t.Errorf("%s with %s: got %q, want %q", tt.schema, tt.instance, got, tt.want)
		}
	}
}

func TestValidateMessageAndCap(t *testing.T) {
	t.Parallel()
	var props, inst []string
	for i := range 25 {
		props = append(props, fmt.Sprintf(`"p%02d":{"type":"integer"}`, i))
		inst = append(inst, fmt.Sprintf(`"p%02d":"x"`, i))
	}
	s, err := Compile([]byte(`{"properties":{` + strings.Join(props, ",") + `}}`))
	if err != nil {
		t.Fatal(err)
	}
	v, err := DecodeJSON([]byte(`{` + strings.Join(inst, ",") + `}`))
	if err != nil {
		t.Fatal(err)
	}
	err = s.Validate(v)
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("Validate = %v, want *ValidationError", err)
	}
	if ve.Total != 25 || len(ve.Violations) != MaxViolations {
		t.Errorf("Total, len(Violations) = %d, %d; want 25, %d", ve.Total, len(ve.Violations), MaxViolations)
	}
	lines := strings.Split(err.Error(), "\n")
	if got, want := len(lines), 1+MaxViolations+1; got != want {
		t.Errorf("Error() has %d lines, want %d:\n%s", got, want, err)
	}
	if want := "instance does not match the schema (25 violations)"; lines[0] != want {
		t.Errorf("first line = %q, want %q", lines[0], want)
	}
	if want := "  /p00: got string, want integer"; lines[1] != want {
		t.Errorf("second line = %q, want %q", lines[1], want)
	}
	if want := "  … and 5 more"; lines[len(lines)-1] != want {
		t.Errorf("last line = %q, want %q", lines[len(lines)-1], want)
	}
	// The same input gives the same text every time, despite the library
	// walking Go maps.
	for range 5 {
		if again := s.Validate(v); again.Error() != err.Error() {
			t.Fatalf("Validate output changed between runs:\n%s\n---\n%s", err, again)
		}
	}
}

func TestPatterns(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		pattern    string
		match      []string
		noMatch    []string
		unenforced bool
	}{
		{name: "plain", pattern: `^[a-z]+$`, match: []string{"abc"}, noMatch: []string{"ABC"}},
		{name: "unicode escape", pattern: `^\u0041\u{42}$`, match: []string{"AB"}, noMatch: []string{"ab"}},
		{name: "surrogate pair", pattern: `^\uD83D\uDE00$`, match: []string{"😀"}, noMatch: []string{"x"}},
		{name: "escaped backslash before u", pattern: `^\\u0041$`, match: []string{`\u0041`}, noMatch: []string{"A"}},
		{name: "lookahead", pattern: `^(?!admin).*$`, match: []string{"admin", "bob"}, unenforced: true},
		{name: "backreference", pattern: `^(a)\1$`, match: []string{"xyz"}, unenforced: true},
		{name: "long repeat", pattern: `^.{1,5000}$`, match: []string{""}, unenforced: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			raw := fmt.Sprintf(`{"type":"string","pattern":%q}`, tt.pattern)
			s, err := Compile([]byte(raw))
			if err != nil {
				t.Fatalf("Compile(%s): %v", raw, err)
			}
			if got := len(s.Unenforced()) > 0; got != tt.unenforced {
				t.Errorf("Unenforced() = %q, want unenforced %v", s.Unenforced(), tt.unenforced)
			}
			for _, m := range tt.match {
				if err := s.Validate(m); err != nil {
					t.Errorf("Validate(%q) = %v, want nil", m, err)
				}
			}
			for _, m := range tt.noMatch {
				if err := s.Validate(m); err == nil {
					t.Errorf("Validate(%q) = nil, want a violation", m)
				} else if strings.Contains(err.Error(), `\x{`) {
					t.Errorf("Validate(%q) = %v, want the message to show the original pattern, not the translation", m, err)
				}
			}
		})
	}
}

func TestErrorString(t *testing.T) {
	t.Parallel()
	_, err := Compile([]byte(`{"properties":{"a":{"$ref":"#/$defs/missing"}}}`))
	want := `unresolved-ref at /properties/a/$ref: $ref "#/$defs/missing" does not resolve: nothing at "/$defs/missing" in this schema`
	if err == nil || err.Error() != want {
		t.Errorf("Error() = %v\nwant %s", err, want)
	}
	_, err = Compile([]byte(`{`))
	if err == nil || !strings.HasPrefix(err.Error(), "invalid-json at (root): ") {
		t.Errorf("Error() = %v, want the invalid-json prefix", err)
	}
}

// toolSchema is a realistic 30-property tool inputSchema of the kind SDKs
// generate: descriptions, enums, bounds, formats, a nested object, arrays
// and a shared $defs entry.
func toolSchema() []byte {
	var props []string
	for i := range 30 {
		var p string
		switch i % 6 {
		case 0:
			p = fmt.Sprintf(`"name_%d":{"type":"string","description":"Name of the thing number %d","minLength":1,"maxLength":200,"pattern":"^[A-Za-z0-9_.-]+$"}`, i, i)
		case 1:
			p = fmt.Sprintf(`"count_%d":{"type":"integer","description":"How many","minimum":0,"maximum":1000,"default":10}`, i)
		case 2:
			p = fmt.Sprintf(`"mode_%d":{"type":"string","enum":["fast","slow","balanced"],"description":"Mode"}`, i)
		case 3:
			p = fmt.Sprintf(`"tags_%d":{"type":"array","items":{"type":"string","maxLength":50},"maxItems":20,"uniqueItems":true}`, i)
		case 4:
			p = fmt.Sprintf(`"when_%d":{"type":"string","format":"date-time","description":"Timestamp"}`, i)
		case 5:
			p = fmt.Sprintf(`"addr_%d":{"$ref":"#/$defs/address"}`, i)
		}
		props = append(props, p)
	}
	return []byte(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",
		"$defs":{"address":{"type":"object","properties":{"street":{"type":"string"},"city":{"type":"string"},
		"zip":{"type":"string","pattern":"^[0-9]{5}$"}},"required":["street","city"],"additionalProperties":false}},
		"properties":{` + strings.Join(props, ",") + `},"required":["name_0","count_1"],"additionalProperties":false}`)
}

func TestToolSchemaCompiles(t *testing.T) {
	t.Parallel()
	if _, err := Compile(toolSchema()); err != nil {
		t.Fatal(err)
	}
}

func BenchmarkCompile(b *testing.B) {
	raw := toolSchema()
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Compile(raw); err != nil {
			b.Fatal(err)
		}
	}
}

func FuzzCompile(f *testing.F) {
	for _, s := range []string{
		addressSchema, `{}`, `true`, `{"type":"strnig"}`, `{"properties":5}`,
		`{"$ref":"#/$defs/missing"}`, `{"$ref":"https://example.com/x"}`, `{"$ref":"file:///etc/passwd"}`,
		`{"$schema":"http://json-schema.org/draft-07/schema#","$ref":"#/definitions/a","definitions":{"a":{}}}`,
		`{"$schema":"http://json-schema.org/draft-04/schema#","id":"#x","definitions":{"a":{"$ref":"#x"}}}`,
		`{"$id":"urn:x","$dynamicAnchor":"n","items":{"$dynamicRef":"#n"}}`,
		`{"$schema":"https://json-schema.org/draft/2019-09/schema","$recursiveAnchor":true,"items":{"$recursiveRef":"#"}}`,
		`{"pattern":"^(?!a)\\u0041\\uD83D\\uDE00.{1,5000}$","patternProperties":{"(":{}}}`,
		`{"properties":{"a":{"type":"string","x-mcp-header":"A"}}}`,
		doublingChain(4), string(toolSchema()),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		// Panics in the library are recovered into errors that start with
		// libraryPanic; the fuzzer must still hear of them.
		s, err := Compile(raw)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Kind == "" {
				t.Fatalf("Compile returned %T %v, want *Error with a kind", err, err)
			}
			if e.Kind == KindInternal {
				t.Fatalf("Compile: %v", err)
			}
			return
		}
		// A compiled schema must validate anything, including itself.
		if doc, err := DecodeJSON(raw); err == nil {
			if err := s.Validate(doc); err != nil && strings.Contains(err.Error(), libraryPanic) {
				t.Fatalf("Validate: %v", err)
			}
		}
		if err := s.Validate(nil); err != nil && strings.Contains(err.Error(), libraryPanic) {
			t.Fatalf("Validate(nil): %v", err)
		}
		XMCPHeaders(raw)
	})
}

func TestSampleArgs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, schema, want string
	}{
		{"no required", `{"type":"object","properties":{"a":{"type":"string"}}}`, `{}`},
		{"const default enum", `{"required":["c","d","e"],"properties":{"c":{"const":3},"d":{"default":"x"},"e":{"enum":["p","q"]}}}`, `{"c":3,"d":"x","e":"p"}`},
		{"types", `{"required":["i","n","b","a","z"],"properties":{"i":{"type":"integer","minimum":4},"n":{"type":["null","number"]},"b":{"type":"boolean"},"a":{"type":"array"},"z":{"type":"null"}}}`,
			`{"a":[],"b":false,"i":4,"n":1,"z":null}`},
		{"strings", `{"required":["d","s","u"],"properties":{"d":{"type":"string","format":"date"},"s":{"type":"string","minLength":10},"u":{"type":"string","format":"uuid"}}}`,
			`{"d":"2026-01-01","s":"mcp-evalxx","u":"00000000-0000-4000-8000-000000000000"}`},
		{"nested object", `{"required":["o","m"],"properties":{"o":{"type":"object","required":["k"],"properties":{"k":{"type":"integer"}}}}}`, `{"m":"mcp-eval","o":{"k":1}}`},
		{"not a schema", `[1]`, `{}`},
	}
	for _, tt := range tests {
		got, err := json.Marshal(SampleArgs(json.RawMessage(tt.schema)))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, string(got)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

// BenchmarkCheckCatalogue: what conformance's schema checks do with a big
// server's listing, 1 000 tools: Check of every input and output schema,
// and Compile (which the checks used before) beside it.
func BenchmarkCheckCatalogue(b *testing.B) {
	var schemas [][]byte
	for _, raw := range mcptest.BigToolsJSON(1000) {
		var tool map[string]json.RawMessage
		if err := json.Unmarshal(raw, &tool); err != nil {
			b.Fatal(err)
		}
		for _, key := range []string{"inputSchema", "outputSchema"} {
			if s, ok := tool[key]; ok {
				schemas = append(schemas, s)
			}
		}
	}
	for _, bb := range []struct {
		name  string
		check func([]byte) error
	}{
		{"Check", Check},
		{"Compile", func(raw []byte) error { _, err := Compile(raw); return err }},
	} {
		b.Run(bb.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for _, s := range schemas {
					if err := bb.check(s); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
