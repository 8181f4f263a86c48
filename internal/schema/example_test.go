package schema_test

import (
	"errors"
	"fmt"

	"github.com/mcp-eval/mcp-eval/internal/schema"
)

func ExampleCompile() {
	for _, raw := range []string{
		`{"type":"strnig"}`,
		`{"properties":{"a":{"$ref":"#/$defs/missing"}}}`,
		`{"properties":{"a":{"$ref":"https://example.com/a.json"}}}`,
	} {
		_, err := schema.Compile([]byte(raw))
		var e *schema.Error
		if errors.As(err, &e) {
			fmt.Println(e.Kind, e.Pointer)
		}
	}
	// Output:
	// invalid-schema /type
	// unresolved-ref /properties/a/$ref
	// external-ref /properties/a/$ref
}

func ExampleSchema_Validate() {
	s, err := schema.Compile([]byte(`{"type":"object","required":["city"],
		"properties":{"city":{"type":"string"},"days":{"type":"integer","maximum":14}}}`))
	if err != nil {
		panic(err)
	}
	v, err := schema.DecodeJSON([]byte(`{"days":30}`))
	if err != nil {
		panic(err)
	}
	fmt.Println(s.Validate(v))
	// Output:
	// instance does not match the schema (2 violations)
	//   (root): missing property 'city'
	//   /days: maximum: got 30, want 14
}

func ExampleXMCPHeaders() {
	params, issues := schema.XMCPHeaders([]byte(`{"type":"object","properties":{
		"region":{"type":"string","x-mcp-header":"Region"},
		"amount":{"type":"number","x-mcp-header":"Amount"}}}`))
	for _, p := range params {
		fmt.Printf("Mcp-Param-%s <- %v\n", p.Name, p.Path)
	}
	for _, i := range issues {
		fmt.Println(i)
	}
	// Output:
	// Mcp-Param-Region <- [region]
	// /properties/amount/x-mcp-header: type "number" is not allowed for x-mcp-header; use "integer" or "string"
}
