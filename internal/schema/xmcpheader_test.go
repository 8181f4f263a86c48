package schema

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestXMCPHeaders(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		schema     string
		wantParams []HeaderParam
		wantIssues []HeaderIssue
	}{
		{
			name: "spec example",
			schema: `{"type":"object","properties":{
				"region":{"type":"string","description":"The region","x-mcp-header":"Region"},
				"query":{"type":"string"}},"required":["region","query"]}`,
			wantParams: []HeaderParam{{Name: "Region", Path: []string{"region"}, Pointer: "/properties/region"}},
		},
		{
			name: "nested properties, integer, boolean, nullable, token punctuation",
			schema: `{"type":"object","properties":{
				"tenant":{"type":"object","properties":{
					"id":{"type":"integer","x-mcp-header":"Tenant-Id"},
					"beta":{"type":"boolean","x-mcp-header":"x.beta_flag!#$%&'*+^` + "`" + `|~"}}},
				"trace":{"type":["string","null"],"x-mcp-header":"Trace"}}}`,
			wantParams: []HeaderParam{
				{Name: "x.beta_flag!#$%&'*+^`|~", Path: []string{"tenant", "beta"}, Pointer: "/properties/tenant/properties/beta"},
				{Name: "Tenant-Id", Path: []string{"tenant", "id"}, Pointer: "/properties/tenant/properties/id"},
				{Name: "Trace", Path: []string{"trace"}, Pointer: "/properties/trace"},
			},
		},
		{
			name:   "empty",
			schema: `{"properties":{"a":{"type":"string","x-mcp-header":""}}}`,
			wantIssues: []HeaderIssue{{Pointer: "/properties/a/x-mcp-header",
				Message: "x-mcp-header must not be empty"}},
		},
		{
			name:   "space is not a tchar",
			schema: `{"properties":{"a":{"type":"string","x-mcp-header":"My Header"}}}`,
			wantIssues: []HeaderIssue{{Pointer: "/properties/a/x-mcp-header",
				Message: `x-mcp-header "My Header" is not an HTTP token: ' ' is not allowed`}},
		},
		{
			name:   "colon and non-ASCII",
			schema: `{"properties":{"a":{"type":"string","x-mcp-header":"Région"},"b":{"type":"string","x-mcp-header":"X:Y"}}}`,
			wantIssues: []HeaderIssue{
				{Pointer: "/properties/a/x-mcp-header", Message: `x-mcp-header "Région" is not an HTTP token: 'é' is not allowed`},
				{Pointer: "/properties/b/x-mcp-header", Message: `x-mcp-header "X:Y" is not an HTTP token: ':' is not allowed`},
			},
		},
		{
			name:   "CR LF injection",
			schema: `{"properties":{"a":{"type":"string","x-mcp-header":"A\r\nX-Injected: 1"}}}`,
			wantIssues: []HeaderIssue{{Pointer: "/properties/a/x-mcp-header",
				Message: `x-mcp-header "A\r\nX-Injected: 1" contains a control character ('\r')`}},
		},
		{
			name:   "tab and DEL",
			schema: `{"properties":{"a":{"type":"string","x-mcp-header":"A\tB"},"b":{"type":"string","x-mcp-header":"A\u007f"}}}`,
			wantIssues: []HeaderIssue{
				{Pointer: "/properties/a/x-mcp-header", Message: `x-mcp-header "A\tB" contains a control character ('\t')`},
				{Pointer: "/properties/b/x-mcp-header", Message: `x-mcp-header "A\x7f" contains a control character ('\x7f')`},
			},
		},
		{
			name:   "not a string",
			schema: `{"properties":{"a":{"type":"string","x-mcp-header":true}}}`,
			wantIssues: []HeaderIssue{{Pointer: "/properties/a/x-mcp-header",
				Message: "x-mcp-header must be a string, got a boolean"}},
		},
		{
			name: "duplicates ignoring case",
			schema: `{"properties":{"a":{"type":"string","x-mcp-header":"Tenant"},
				"b":{"type":"string","x-mcp-header":"TENANT"},"c":{"type":"string","x-mcp-header":"tenant"}}}`,
			wantParams: []HeaderParam{{Name: "Tenant", Path: []string{"a"}, Pointer: "/properties/a"}},
			wantIssues: []HeaderIssue{
				{Pointer: "/properties/b/x-mcp-header",
					Message: `x-mcp-header "TENANT" duplicates the one at /properties/a/x-mcp-header (names are compared ignoring case)`},
				{Pointer: "/properties/c/x-mcp-header",
					Message: `x-mcp-header "tenant" duplicates the one at /properties/a/x-mcp-header (names are compared ignoring case)`},
			},
		},
		{
			name:   "number type",
			schema: `{"properties":{"a":{"type":"number","x-mcp-header":"Amount"}}}`,
			wantIssues: []HeaderIssue{{Pointer: "/properties/a/x-mcp-header",
				Message: `type "number" is not allowed for x-mcp-header; use "integer" or "string"`}},
		},
		{
			name:   "number in a type list",
			schema: `{"properties":{"a":{"type":["integer","number"],"x-mcp-header":"Amount"}}}`,
			wantIssues: []HeaderIssue{{Pointer: "/properties/a/x-mcp-header",
				Message: `type "number" is not allowed for x-mcp-header; use "integer" or "string"`}},
		},
		{
			name: "object, array, null-only and missing type",
			schema: `{"properties":{"a":{"type":"object","x-mcp-header":"A"},"b":{"type":"array","x-mcp-header":"B"},
				"c":{"type":"null","x-mcp-header":"C"},"d":{"x-mcp-header":"D"}}}`,
			wantIssues: []HeaderIssue{
				{Pointer: "/properties/a/x-mcp-header", Message: `type "object" is not allowed; x-mcp-header needs type string, integer or boolean`},
				{Pointer: "/properties/b/x-mcp-header", Message: `type "array" is not allowed; x-mcp-header needs type string, integer or boolean`},
				{Pointer: "/properties/c/x-mcp-header", Message: `x-mcp-header needs type string, integer or boolean`},
				{Pointer: "/properties/d/x-mcp-header", Message: `the property has no "type"; x-mcp-header needs type string, integer or boolean declared next to the annotation`},
			},
		},
		{
			name:   "on the root",
			schema: `{"type":"object","x-mcp-header":"Root"}`,
			wantIssues: []HeaderIssue{{Pointer: "/x-mcp-header",
				Message: "x-mcp-header is on the root schema, which is not a property"}},
		},
		{
			name: "unreachable through every other keyword",
			schema: `{"type":"object",
				"properties":{"list":{"type":"array","items":{"type":"object","properties":{"h":{"type":"string","x-mcp-header":"Items"}}}},
					"ref":{"$ref":"#/$defs/d"}},
				"$defs":{"d":{"type":"string","x-mcp-header":"Defs"}},
				"oneOf":[{"properties":{"o":{"type":"string","x-mcp-header":"OneOf"}}}],
				"anyOf":[{"properties":{"o":{"type":"string","x-mcp-header":"AnyOf"}}}],
				"allOf":[{"properties":{"o":{"type":"string","x-mcp-header":"AllOf"}}}],
				"not":{"properties":{"o":{"type":"string","x-mcp-header":"Not"}}},
				"if":{"properties":{"o":{"type":"string","x-mcp-header":"If"}}},
				"then":{"properties":{"o":{"type":"string","x-mcp-header":"Then"}}},
				"else":{"properties":{"o":{"type":"string","x-mcp-header":"Else"}}},
				"additionalProperties":{"type":"string","x-mcp-header":"Additional"},
				"patternProperties":{"^x":{"type":"string","x-mcp-header":"Pattern"}}}`,
			wantIssues: []HeaderIssue{
				{Pointer: "/$defs/d/x-mcp-header", Message: reach("$defs")},
				{Pointer: "/additionalProperties/x-mcp-header", Message: reach("additionalProperties")},
				{Pointer: "/allOf/0/properties/o/x-mcp-header", Message: reach("allOf")},
				{Pointer: "/anyOf/0/properties/o/x-mcp-header", Message: reach("anyOf")},
				{Pointer: "/else/properties/o/x-mcp-header", Message: reach("else")},
				{Pointer: "/if/properties/o/x-mcp-header", Message: reach("if")},
				{Pointer: "/not/properties/o/x-mcp-header", Message: reach("not")},
				{Pointer: "/oneOf/0/properties/o/x-mcp-header", Message: reach("oneOf")},
				{Pointer: "/patternProperties/^x/x-mcp-header", Message: reach("patternProperties")},
				{Pointer: "/properties/list/items/properties/h/x-mcp-header", Message: reach("items")},
				{Pointer: "/then/properties/o/x-mcp-header", Message: reach("then")},
			},
		},
		{
			name: "data and property names are not annotations",
			schema: `{"type":"object","properties":{"x-mcp-header":{"type":"string"},
				"a":{"type":"object","default":{"x-mcp-header":"Nope"},"examples":[{"x-mcp-header":"Nope"}],"const":{"x-mcp-header":"Nope"}}}}`,
		},
		{
			name:       "not JSON",
			schema:     `{"properties":`,
			wantIssues: []HeaderIssue{{Message: "schema is not JSON: unexpected EOF"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			params, issues := XMCPHeaders([]byte(tt.schema))
			if diff := cmp.Diff(tt.wantParams, params); diff != "" {
				t.Errorf("params mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantIssues, issues); diff != "" {
				t.Errorf("issues mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func reach(keyword string) string {
	return `x-mcp-header is not statically reachable: the path from the root goes through "` + keyword +
		`", and only "properties" keys are allowed`
}

func TestHeaderIssueString(t *testing.T) {
	t.Parallel()
	_, issues := XMCPHeaders([]byte(`{"x-mcp-header":"A"}`))
	if len(issues) != 1 {
		t.Fatalf("got %d issues, want 1", len(issues))
	}
	want := "/x-mcp-header: x-mcp-header is on the root schema, which is not a property"
	if got := issues[0].String(); got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

// quiet never hides what the walk would find: a schema it lets through
// has no header and no issue.
func TestQuietHidesNothing(t *testing.T) {
	deep := strings.Repeat(`{"properties":{"a":`, MaxDepth) + `{}` + strings.Repeat(`}}`, MaxDepth)
	for _, raw := range []string{
		`{"type":"object","properties":{"q":{"type":"string"}}}`,
		`{"type":"object","properties":{"r":{"type":"string","x-mcp-header":"Region"}}}`,
		`{"type":"object","properties":{"r":{"type":"string","x\u002dmcp-header":"Region"}}}`,
		`{"type":"object","maximum":1e99999}`,
		`{"type":"object","default":` + strings.Repeat("9", 2000) + `}`,
		deep,
		`{"type":"object"`,
		`[1,2,{"a":-0.5e-3}]`,
	} {
		if quiet([]byte(raw)) {
			if hs, issues := walkHeaders([]byte(raw)); len(hs)+len(issues) != 0 {
				t.Errorf("quiet(%.60s) hides %v %v", raw, hs, issues)
			}
		} else if strings.HasPrefix(raw, `{"type":"object","properties":{"q"`) {
			t.Errorf("quiet(%s) = false for a plain schema", raw)
		}
	}
}

func FuzzQuiet(f *testing.F) {
	f.Add([]byte(`{"type":"object","properties":{"q":{"type":"string","x-mcp-header":"Q"}}}`))
	f.Add([]byte(`{"a":[1e5,-2,{"b":"\\"}]}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		if quiet(raw) {
			if hs, issues := walkHeaders(raw); len(hs)+len(issues) != 0 {
				t.Fatalf("quiet(%q) hides %v %v", raw, hs, issues)
			}
		}
	})
}
