package tasks

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"gopkg.in/yaml.v3"

	"github.com/mcp-eval/mcp-eval/internal/spectest"
)

const tasksSchemaPath = "../docs/tasks.schema.json"

// seedExample is the short-form golden file shipped in examples/.
const seedExample = "../examples/golden/seed.yaml"

// resilienceFaults is the resilience package's golden set with Layer 2
// keys, validated here, where the schema and the Layer 2 keys live.
const resilienceFaults = "../resilience/testdata/faults/tasks.yaml"

// compileTasksSchema compiles docs/tasks.schema.json with nothing but the
// document itself.
func compileTasksSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	s := spectest.CompileDoc(t, tasksSchemaPath, "")
	return s
}

// yamlAsJSON converts a YAML file to the JSON value an editor's schema
// validation sees, with the loader's own conversion.
func yamlAsJSON(t *testing.T, data []byte) any {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	p := &parser{file: "x"}
	raw, ok := p.toJSON(doc.Content[0], "file")
	if !ok {
		t.Fatal(p.errs)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestSchema validates the shipped golden set, the fixtures and the
// resilience package's testdata against docs/tasks.schema.json.
func TestSchema(t *testing.T) {
	t.Parallel()
	s := compileTasksSchema(t)
	for _, path := range []string{shippedTasks, filepath.Join("testdata", "full.yaml"), seedExample, resilienceFaults} {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Validate(yamlAsJSON(t, b)); err != nil {
			t.Errorf("%s: %v", path, err)
		}
		if !bytes.HasPrefix(b, []byte("# yaml-language-server: $schema=")) {
			t.Errorf("%s does not start with the yaml-language-server modeline", path)
		}
	}
}

// TestSchemaRejects makes sure the schema catches, in the editor, the
// mistakes the loader rejects.
func TestSchemaRejects(t *testing.T) {
	t.Parallel()
	s := compileTasksSchema(t)
	const head = "version: 1\ncases:\n"
	for name, src := range map[string]string{
		"unknown key":            head + "  - {id: a, prompt: p, expect_tol: x}\n",
		"unknown top key":        "version: 1\ndefault: {}\ncases:\n  - {id: a, prompt: p, negative: true}\n",
		"no expectation":         head + "  - {id: a, prompt: p}\n",
		"negative false only":    head + "  - {id: a, prompt: p, negative: false}\n",
		"tool and sequence":      head + "  - {id: a, prompt: p, expect_tool: x, expect_sequence: [x]}\n",
		"bad kind":               head + "  - {id: a, prompt: p, negative: true, kind: firm}\n",
		"bad mode":               head + "  - {id: a, prompt: p, expect_tool: x, expect_args: {c: 1}, arg_match: {c: fuzzy}}\n",
		"tolerance not number":   head + "  - {id: a, prompt: p, expect_tool: x, expect_args: {c: 1}, arg_match: {c: {mode: exact, tolerance: 1}}}\n",
		"negative with args":     head + "  - {id: a, prompt: p, expect_tool: null, expect_args: {c: 1}}\n",
		"negative with tool":     head + "  - {id: a, prompt: p, negative: true, expect_tool: x}\n",
		"null tool not negative": head + "  - {id: a, prompt: p, negative: false, expect_tool: null}\n",
		"chain with case args":   head + "  - {id: a, prompt: p, expect_sequence: [x], expect_args: {c: 1}}\n",
		"bad id":                 head + "  - {id: 'a b', prompt: p, negative: true}\n",
		"version 2":              "version: 2\ncases:\n  - {id: a, prompt: p, negative: true}\n",
		"no cases":               "version: 1\ncases: []\n",
		"floor above 1":          head + "  - {id: a, prompt: p, negative: true, floor: 1.5}\n",
		"rubric file key":        head + "  - {id: a, prompt: p, negative: true, rubric: {path: r.md}}\n",
		"step typo":              head + "  - {id: a, prompt: p, expect_sequence: [{tool: x, expect_arg: {}}]}\n",
		"max_turns 0":            head + "  - {id: a, prompt: p, negative: true, max_turns: 0}\n",
		"no prompt":              head + "  - {id: a, negative: true}\n",
		"prompt and query":       head + "  - {id: a, prompt: p, query: q, negative: true}\n",
		"list form, empty":       "[]\n",
		"list form, bad case":    "- {id: a, prompt: p}\n",
		"a scalar":               "cases\n",
		"empty expect_answer":    head + "  - {id: a, prompt: p, negative: true, expect_answer: {}}\n",
		"expect_answer typo":     head + "  - {id: a, prompt: p, negative: true, expect_answer: {contain: x}}\n",
		"bad selection":          head + "  - {id: a, prompt: p, expect_tool: x, selection: second}\n",
		"empty tool list":        head + "  - {id: a, prompt: p, expect_tool: []}\n",
	} {
		if s.Validate(yamlAsJSON(t, []byte(src))) == nil {
			t.Errorf("schema accepted %s", name)
		}
		if _, err := Parse([]byte(src), "t.yaml"); err == nil {
			t.Errorf("loader accepted %s", name)
		}
	}
}

// TestSchemaKeys keeps the keys the loader accepts and the schema's
// properties the same, at every level.
func TestSchemaKeys(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(tasksSchemaPath)
	if err != nil {
		t.Fatal(err)
	}
	type obj struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	var doc struct {
		Defs struct {
			Suite     obj                   `json:"suite"`
			Defaults  obj                   `json:"defaults"`
			Case      obj                   `json:"case"`
			Step      struct{ OneOf []obj } `json:"step"`
			MatchSpec struct{ OneOf []obj } `json:"matchSpec"`
			Rubric    struct{ OneOf []obj } `json:"rubric"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	keys := func(o obj) []string {
		var out []string
		for k := range o.Properties {
			out = append(out, k)
		}
		slices.Sort(out)
		return out
	}
	sorted := func(s []string) []string { s = slices.Clone(s); slices.Sort(s); return s }
	for _, tt := range []struct {
		level  string
		loader []string
		schema obj
	}{
		{"top", topKeys, doc.Defs.Suite},
		{"defaults", defaultsKeys, doc.Defs.Defaults},
		{"case", caseKeys, doc.Defs.Case},
		{"step", stepKeys, doc.Defs.Step.OneOf[1]},
		{"arg_match", argMatchKeys, doc.Defs.MatchSpec.OneOf[1]},
		{"rubric", rubricKeys, doc.Defs.Rubric.OneOf[1]},
	} {
		if diff := cmp.Diff(sorted(tt.loader), keys(tt.schema)); diff != "" {
			t.Errorf("%s keys: loader and schema differ (-loader +schema):\n%s", tt.level, diff)
		}
	}
	var modes struct {
		Defs struct {
			MatchMode struct {
				Enum []MatchMode `json:"enum"`
			} `json:"matchMode"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(b, &modes); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(matchModes, modes.Defs.MatchMode.Enum); diff != "" {
		t.Errorf("match modes: loader and schema differ (-loader +schema):\n%s", diff)
	}
}

// TestSchemaAcceptsExpressiveKeys: the schema takes what the loader takes
// for vars, turns, models, expect_answer, a list of tools, selection and
// forbid_tools.
func TestSchemaAcceptsExpressiveKeys(t *testing.T) {
	t.Parallel()
	s := compileTasksSchema(t)
	src := `- id: weather
  vars: {city: [Paris, Tokyo], units: celsius}
  prompt: Weather in {{city}}?
  expect_tool: [get_weather, search_invoices]
  selection: first
  forbid_tools: [send_email]
  expect_answer: {contains: [sunny], not_contains: rain, regex: '\d', equals: x, json_path: {$.a: 1}}
  models: [openai:gpt-4.1-mini]
- id: chat
  turns:
    - {prompt: 'Weather in Paris?', expect_tool: get_weather, expect_args: {city: Paris}}
    - {query: 'Thanks!', expect_tool: null, expect_answer: {contains: welcome}}
`
	if err := s.Validate(yamlAsJSON(t, []byte(src))); err != nil {
		t.Errorf("schema: %v", err)
	}
	if _, err := Parse([]byte(src), "t.yaml"); err != nil {
		t.Errorf("loader: %v", err)
	}
}
