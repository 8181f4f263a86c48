package report

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcp-eval/mcp-eval/internal/spectest"
)

const schemaPath = "../docs/report.schema.json"

// compileSchema compiles docs/report.schema.json with no loader beyond the
// document itself: it must not reach the network or other files.
func compileSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	s := spectest.CompileDoc(t, schemaPath, "")
	return s
}

// validateFiles validates every file matching pattern (there must be
// some) against s.
func validateFiles(t *testing.T, s *jsonschema.Schema, pattern string) {
	t.Helper()
	paths, err := filepath.Glob(pattern)
	if err != nil || len(paths) == 0 {
		t.Fatalf("no files match %s: %v", pattern, err)
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := validate(t, s, b); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
}

func validate(t *testing.T, s *jsonschema.Schema, b []byte) error {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return s.Validate(v)
}

// TestSchemaValidatesGoldens validates every report in testdata, the inputs
// and the WriteJSON outputs, against docs/report.schema.json.
func TestSchemaValidatesGoldens(t *testing.T) {
	t.Parallel()
	s := compileSchema(t)
	validateFiles(t, s, filepath.Join("testdata", "*.json"))
	// A minimal report as WriteJSON writes it is valid too.
	if err := validate(t, s, render(t, WriteJSON, &Report{SchemaVersion: SchemaVersion, Server: Server{Transport: "http", Era: "unknown"}})); err != nil {
		t.Errorf("minimal report: %v", err)
	}
}

// TestSchemaRejects makes sure the schema has teeth.
func TestSchemaRejects(t *testing.T) {
	t.Parallel()
	s := compileSchema(t)
	good := render(t, WriteJSON, loadReport(t, "failing-modern"))
	tests := []struct {
		name   string
		mutate func(map[string]any)
	}{
		{"no checks", func(m map[string]any) { delete(m, "checks") }},
		{"schema version 2", func(m map[string]any) { m["schemaVersion"] = 2 }},
		{"bad status", func(m map[string]any) { check0(m)["status"] = "passed" }},
		{"bad level", func(m map[string]any) { check0(m)["level"] = "MAY" }},
		{"bad id", func(m map[string]any) { check0(m)["id"] = "Caching Tools" }},
		{"runs as string", func(m map[string]any) { check0(m)["runs"] = "5" }},
		{"score above 1", func(m map[string]any) { m["scores"].(map[string]any)["x"] = 1.5 }},
		{"bad era", func(m map[string]any) { m["server"].(map[string]any)["era"] = "ancient" }},
		{"gate without reasons", func(m map[string]any) { delete(m["gate"].(map[string]any), "reasons") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var m map[string]any
			if err := json.Unmarshal(good, &m); err != nil {
				t.Fatal(err)
			}
			tt.mutate(m)
			b, err := json.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			if validate(t, s, b) == nil {
				t.Errorf("schema accepted a report with %s", tt.name)
			}
		})
	}
}

func check0(m map[string]any) map[string]any {
	return m["checks"].([]any)[0].(map[string]any)
}

// TestSchemaMatchesStructs keeps docs/report.schema.json in sync with the Go
// types: every exported struct in this package with json tags has a schema
// object (the root for Report, $defs/<Type> for the others) whose
// properties are exactly its json field names. Unexported structs are the
// shapes of other files (results.sarif), not of report.json.
func TestSchemaMatchesStructs(t *testing.T) {
	t.Parallel()
	var schema struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Defs       map[string]struct {
			Properties map[string]json.RawMessage `json:"properties"`
		} `json:"$defs"`
	}
	readJSON(t, schemaPath, &schema)
	structs := jsonStructs(t)
	if len(structs) < 10 {
		t.Fatalf("found only %d structs with json tags: %v", len(structs), structs)
	}
	for name, tags := range structs {
		props := schema.Properties
		if name != "Report" {
			def, ok := schema.Defs[name]
			if !ok {
				t.Errorf("schema has no $defs/%s for struct %s", name, name)
				continue
			}
			props = def.Properties
		}
		if diff := cmp.Diff(tags, sortedKeys(props)); diff != "" {
			t.Errorf("struct %s and its schema differ (-go +schema):\n%s", name, diff)
		}
	}
}

// jsonStructs parses the package's non-test files and returns, for each
// struct type with json tags, its sorted json field names.
func jsonStructs(t *testing.T) map[string][]string {
	t.Helper()
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	embeds := map[string][]string{} // struct → the structs it embeds
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok {
				return true
			}
			st, ok := ts.Type.(*ast.StructType)
			if !ok || !ts.Name.IsExported() {
				return true
			}
			var tags []string
			for _, fld := range st.Fields.List {
				if fld.Tag == nil {
					// An embedded struct (or a pointer to one) without a
					// tag: encoding/json writes its members inline.
					typ := fld.Type
					if star, ok := typ.(*ast.StarExpr); ok {
						typ = star.X
					}
					if id, ok := typ.(*ast.Ident); ok && len(fld.Names) == 0 {
						embeds[ts.Name.Name] = append(embeds[ts.Name.Name], id.Name)
					}
					continue
				}
				raw, err := strconv.Unquote(fld.Tag.Value)
				if err != nil {
					t.Fatalf("%s: tag %s: %v", path, fld.Tag.Value, err)
				}
				name, _, _ := strings.Cut(reflect.StructTag(raw).Get("json"), ",")
				if name != "" && name != "-" {
					tags = append(tags, name)
				}
			}
			if len(tags) > 0 {
				out[ts.Name.Name] = tags
			}
			return true
		})
	}
	// An embedded struct's members are its embedder's in report.json; it
	// has no schema object of its own.
	for name, inner := range embeds {
		for _, e := range inner {
			out[name] = append(out[name], out[e]...)
		}
	}
	for _, inner := range embeds {
		for _, e := range inner {
			delete(out, e)
		}
	}
	for _, tags := range out {
		sort.Strings(tags)
	}
	return out
}
