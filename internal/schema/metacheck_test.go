package schema

import (
	"encoding/json"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/mcp-eval/mcp-eval/internal/mcptest"
)

// checkCases are schemas surelyMetaValid takes and schemas it must leave
// to the library: every keyword of the 2020-12 metaschema with a value it
// allows and one it refuses.
var checkCases = []string{
	`{"type":"object","properties":{"q":{"type":"string","minLength":1,"maxLength":200,"description":"d","title":"t"}},"required":["q"],"additionalProperties":false}`,
	`{"type":["string","null"]}`, `{"type":[]}`, `{"type":["string","string"]}`, `{"type":"strnig"}`, `{"type":5}`,
	`{"enum":[1,"a",null,{}]}`, `{"enum":"a"}`, `{"const":{"$ref":"x"}}`, `{"default":[1]}`, `{"examples":[1]}`, `{"examples":1}`,
	`{"multipleOf":0.5}`, `{"multipleOf":0}`, `{"multipleOf":-1}`, `{"multipleOf":1e-400}`, `{"multipleOf":"1"}`,
	`{"maximum":1e308,"minimum":-5,"exclusiveMaximum":0.5,"exclusiveMinimum":-0}`, `{"maximum":"1"}`,
	`{"minLength":0}`, `{"minLength":-1}`, `{"minLength":1.0}`, `{"maxItems":1.5}`, `{"maxItems":1e2}`, `{"minContains":3,"maxContains":4}`,
	`{"maxProperties":18446744073709551616}`, `{"minProperties":"1"}`,
	`{"pattern":"^[A-Z]{2,4}-[0-9]{1,6}$"}`, `{"pattern":"(abc"}`, `{"pattern":"^(?!a)b$"}`, `{"pattern":5}`,
	`{"patternProperties":{"^x-":{"type":"string"}}}`, `{"patternProperties":{"(":{}}}`, `{"patternProperties":{"a":5}}`,
	`{"uniqueItems":true,"deprecated":false,"readOnly":true,"writeOnly":false}`, `{"uniqueItems":"yes"}`,
	`{"required":[]}`, `{"required":["a","a"]}`, `{"required":"a"}`, `{"required":[1]}`,
	`{"dependentRequired":{"a":["b"]}}`, `{"dependentRequired":{"a":["b","b"]}}`, `{"dependentRequired":{"a":"b"}}`,
	`{"dependentSchemas":{"a":{"required":["b"]}}}`, `{"dependentSchemas":{"a":1}}`,
	`{"dependencies":{"a":["b"],"c":{"required":["d"]}}}`, `{"dependencies":{"a":5}}`, `{"dependencies":{"a":["b","b"]}}`,
	`{"definitions":{"a":{"type":"string"}},"properties":{"x":{"$ref":"#/definitions/a"}}}`, `{"definitions":{"a":7}}`,
	`{"$defs":{"a":true,"b":false},"items":{"$ref":"#/$defs/a"}}`, `{"$defs":[]}`,
	`{"prefixItems":[{"type":"string"}],"items":false,"contains":{"const":1},"unevaluatedItems":false}`, `{"prefixItems":[]}`, `{"items":[{}]}`,
	`{"allOf":[{}],"anyOf":[true],"oneOf":[{"type":"string"},{"type":"integer"}],"not":{"type":"null"}}`, `{"allOf":[]}`, `{"anyOf":{}}`,
	`{"if":{"properties":{"k":{"const":"a"}}},"then":{"required":["a"]},"else":false}`, `{"if":1}`,
	`{"propertyNames":{"maxLength":3},"unevaluatedProperties":false}`, `{"propertyNames":"x"}`,
	`{"contentEncoding":"base64","contentMediaType":"application/json","contentSchema":{"type":"object"}}`, `{"contentEncoding":1}`,
	`{"format":"date","title":"t","description":"d","$comment":"c"}`, `{"format":1}`, `{"title":null}`, `{"$comment":[]}`,
	`{"x-mcp-header":"Q","x-anything":{"$ref":5}}`,
	`{"$ref":"#"}`, `{"$ref":"#/$defs/a%20b","$defs":{"a b":{}}}`, `{"$ref":"#/$defs/missing"}`, `{"$ref":"#\\x"}`, `{"$ref":"#%zz"}`, `{"$ref":5}`,
	`{"$ref":".schema-under-test#/$defs/a","$defs":{"a":{}}}`, `{"$ref":"https://json-schema.org/mcp-eval/.schema-under-test#/$defs/a","$defs":{"a":{}}}`,
	`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object"}`, `{"$schema":"https://json-schema.org/draft/2020-12/schema#"}`,
	`{"properties":{"a":{"$schema":"https://json-schema.org/draft/2020-12/schema"}}}`,
	`{"$id":"https://example.com/s","type":"object"}`, `{"$anchor":"a"}`, `{"$dynamicAnchor":"meta","items":{"$dynamicRef":"#meta"}}`,
	`{"$vocabulary":{"https://json-schema.org/draft/2020-12/vocab/core":true}}`, `{"$recursiveAnchor":"a"}`,
	`{"properties":{"a":{"$ref":"#/properties/b/default"},"b":{"default":{"type":5}}}}`,
	`{"properties":{"a":{"$ref":"#/required/0"}},"required":["a"]}`,
	`true`, `false`, `{}`, `"object"`, `5`, `null`, `[]`, doublingChain(20), doublingChain(4),
	// surelyCompiles: the fan-out bound at its edge, cycles, and $refs it
	// leaves to the library.
	doublingChain(12), doublingChain(13), doublingChain(14),
	`{"$ref":"#/$defs/a","$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}}}`,
	`{"allOf":[{"$ref":"#"}]}`, `{"properties":{"next":{"$ref":"#"}}}`, `{"not":{"not":{"$ref":"#/not"}}}`,
	`{"$ref":"#/$defs/","$defs":{"":{}}}`, `{"$ref":"#/$defs/a~1b","$defs":{"a/b":{}}}`, `{"$ref":"#/$defs/a~0b","$defs":{"a~b":{}}}`,
	`{"$ref":"#/properties","properties":{"a":{}}}`, `{"$ref":"#/x-def","x-def":{"type":"string"}}`, `{"$ref":"#/x-def","x-def":7}`,
	`{"$ref":"#/items/0","items":[{}]}`, `{"$ref":"#/prefixItems/0","prefixItems":[{"type":"integer"}]}`,
	`{"$ref":"#/definitions/a","definitions":{"a":{"$ref":"#/definitions/b"},"b":{"type":"integer"}}}`,
	`{"$ref":"#/dependentSchemas/a","dependentSchemas":{"a":{"$ref":"#/dependentSchemas/a"}}}`,
	`{"if":{"$ref":"#/$defs/a"},"then":{"$ref":"#/$defs/a"},"else":{"$ref":"#/$defs/a"},"$defs":{"a":{"minimum":1}}}`,
	`{"$ref":"#/$defs/a","$defs":{"a":{"$ref":"#/$defs/missing"}}}`, `{"$ref":"#/$defs/a/properties/b","$defs":{"a":{"properties":{"b":false}}}}`,
}

// TestCheckAsCompile: Check says exactly what Compile says (the same
// *Error, field for field, or nil) on every schema of the package's test
// tables and of a big server's catalogue; and the catalogue's schemas take
// Check's shortcut.
func TestCheckAsCompile(t *testing.T) {
	t.Parallel()
	for _, c := range schemaCorpus() {
		sameAsCompile(t, []byte(c))
	}
	for i, raw := range mcptest.BigToolsJSON(60) {
		tool, err := DecodeJSON(raw)
		if err != nil {
			t.Fatal(err)
		}
		for _, key := range []string{"inputSchema", "outputSchema"} {
			s, ok := tool.(map[string]any)[key]
			if !ok {
				continue
			}
			b, err := json.Marshal(s)
			if err != nil {
				t.Fatal(err)
			}
			sameAsCompile(t, b)
			doc, _ := DecodeJSON(b)
			if !surelyMetaValid(doc, &regexpEngine{}) || !surelyCompiles(doc, findPlainRefs(doc)) {
				t.Errorf("tool %d's %s does not take Check's shortcuts: %s", i, key, b)
			}
		}
	}
}

// FuzzCheck: Check says what Compile says, on any bytes.
func FuzzCheck(f *testing.F) {
	for _, c := range checkCases {
		f.Add([]byte(c))
	}
	f.Fuzz(sameAsCompile)
}

func sameAsCompile(t *testing.T, raw []byte) {
	got := Check(raw)
	_, want := Compile(raw)
	// Some of the library's messages name two places in its map order
	// (a duplicate anchor): Compile itself says either.
	for range 20 {
		if reflect.DeepEqual(got, want) {
			return
		}
		_, want = Compile(raw)
	}
	t.Fatalf("%s:\nCheck   %#v\nCompile %#v", raw, got, want)
}

// TestCheckedURLSkipsTheMetaschema: the shortcut rests on the library not
// checking a document under json-schema.org against a metaschema. If a new
// version of it does, Check stays right (this test fails, and Check merely
// costs what Compile does).
func TestCheckedURLSkipsTheMetaschema(t *testing.T) {
	t.Parallel()
	doc, err := DecodeJSON([]byte(`{"minLength":-1}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range []string{rootURL, checkedURL} {
		c := newCompiler(&regexpEngine{})
		if err := c.AddResource(u, doc); err != nil {
			t.Fatal(err)
		}
		_, err := c.Compile(u)
		if got, want := err != nil, u == rootURL; got != want {
			t.Errorf("compiled under %s: error %v, want an error: %v", u, err, want)
		}
	}
}

// TestQuickAudit: the audit visits the subschemas forEachSubschema visits,
// and says a check has nothing to find only where it finds nothing.
func TestQuickAudit(t *testing.T) {
	t.Parallel()
	for _, c := range append(append([]string{}, checkCases...),
		`{"maxItems":18446744073709551616}`, `{"minLength":1e30}`, `{"maxLength":5}`, `{"$schema":"https://example.com/m"}`,
		`{"properties":{"a":{"$schema":"x"}}}`, `{"enum":[[[[1e99999]]]]}`, manyProperties(MaxSubschemas, `{}`),
		manyProperties(MaxPatterns+1, `{"pattern":"a"}`), strings.Repeat("[", MaxDepth+1)+strings.Repeat("]", MaxDepth+1)) {
		auditAgrees(t, []byte(c))
	}
}

// FuzzQuickAudit: as TestQuickAudit, on any schema.
func FuzzQuickAudit(f *testing.F) {
	for _, c := range checkCases {
		f.Add([]byte(c))
	}
	f.Fuzz(auditAgrees)
}

func auditAgrees(t *testing.T, raw []byte) {
	doc, err := DecodeJSON(raw)
	if err != nil {
		return
	}
	a := quickAudit(doc)
	if scanErr := scan(doc, "", 1); (scanErr != nil) != a.deep {
		t.Fatalf("%s: audit says deep %v, scan says %v", raw, a.deep, scanErr)
	}
	if a.deep {
		return
	}
	if e := checkCounts(doc); e != nil && a.schemas <= MaxSubschemas && a.patterns <= MaxPatterns {
		t.Fatalf("%s: audit counts %d schemas, %d patterns; checkCounts says %v", raw, a.schemas, a.patterns, e)
	}
	if e := checkDialects(doc); (e != nil) != a.dialect {
		t.Fatalf("%s: audit says dialect %v, checkDialects says %v", raw, a.dialect, e)
	}
	if !a.clamp {
		before, _ := json.Marshal(doc)
		clampCounts(doc)
		if after, _ := json.Marshal(doc); string(before) != string(after) {
			t.Fatalf("%s: audit says no clamp, clampCounts rewrote it to %s", raw, after)
		}
	}
	var viaFor, viaEach []string
	var walkFor, walkEach func(v any)
	walkFor = func(v any) {
		b, _ := json.Marshal(v)
		viaFor = append(viaFor, string(b))
		if obj, ok := v.(map[string]any); ok {
			forEachSubschema(obj, "", func(_, _, _ string, sub any) { walkFor(sub) })
		}
	}
	walkEach = func(v any) {
		b, _ := json.Marshal(v)
		viaEach = append(viaEach, string(b))
		if obj, ok := v.(map[string]any); ok {
			eachSubschema(obj, walkEach)
		}
	}
	walkFor(doc)
	walkEach(doc)
	sort.Strings(viaFor)
	sort.Strings(viaEach)
	if !reflect.DeepEqual(viaFor, viaEach) {
		t.Fatalf("%s: eachSubschema visits\n%v\nforEachSubschema\n%v", raw, viaEach, viaFor)
	}
}

// schemaCorpus is every schema of the package's test tables.
func schemaCorpus() []string {
	corpus := append([]string(nil), checkCases...)
	for _, c := range compileValidCases {
		corpus = append(corpus, c.schema)
	}
	for _, c := range compileErrorCases {
		corpus = append(corpus, c.schema)
	}
	return corpus
}

// TestShallowFanoutAsCounted: where shallowFanout says the fan-out bound
// holds, counting the whole graph says so too, on every document of the
// test tables that reaches it (meta-valid, its $refs surely resolving).
func TestShallowFanoutAsCounted(t *testing.T) {
	t.Parallel()
	shallow := 0
	for _, c := range schemaCorpus() {
		doc, err := DecodeJSON([]byte(c))
		if err != nil || !surelyMetaValid(doc, &regexpEngine{}) {
			continue
		}
		refs := findPlainRefs(doc)
		if !refs.sure || !shallowFanout(refs) {
			continue
		}
		shallow++
		if !fanoutCounted(doc) {
			t.Errorf("%s: shallowFanout says the bound holds, counting says it does not", c)
		}
	}
	if shallow < 10 {
		t.Errorf("shallowFanout decided only %d documents", shallow)
	}
}

// FuzzPlainRefs: where findPlainRefs is sure, auditRefs finds nothing
// (compile skips the audit on its word, Check and Compile alike, so
// FuzzCheck cannot see it).
func FuzzPlainRefs(f *testing.F) {
	for _, c := range schemaCorpus() {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		doc, err := DecodeJSON(raw)
		if err != nil || quickAudit(doc).deep {
			return
		}
		if findPlainRefs(doc).sure {
			if e := auditRefs(doc, Draft2020); e != nil {
				t.Fatalf("%s: findPlainRefs is sure, auditRefs says %v", raw, e)
			}
		}
	})
}
