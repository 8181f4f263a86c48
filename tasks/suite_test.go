package tasks

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/mcp-eval/mcp-eval/agent"
	"github.com/mcp-eval/mcp-eval/internal/yamlfile"
	"github.com/mcp-eval/mcp-eval/mcp"
	"github.com/mcp-eval/mcp-eval/tasks/taskstest"
)

// shippedTasks is the golden file the example server ships with, the
// default of --golden.
const shippedTasks = "../golden/tasks.yaml"

// TestShippedSuite loads golden/tasks.yaml, validates it against the
// example server's real tools, and checks it has what the issue asks for.
func TestShippedSuite(t *testing.T) {
	t.Parallel()
	s, err := Load(shippedTasks)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(taskstest.WeatherTools(t)); err != nil {
		t.Fatal(err)
	}
	var negative, chains, hard, soft, rubrics, rubricFiles, semantic, regex int
	for _, c := range s.Cases {
		switch {
		case c.Negative:
			negative++
		case c.Chain():
			chains++
		}
		if c.Kind == KindHard {
			hard++
		} else {
			soft++
		}
		if c.Rubric != "" {
			rubrics++
		}
		if c.RubricFile != "" {
			rubricFiles++
		}
		if _, ok := c.Stubs["send_email"]; !ok {
			t.Errorf("case %s: send_email is not stubbed; no case may really send mail", c.ID)
		}
		args := c.Args
		for _, st := range c.Sequence {
			args = append(args, st.Args...)
		}
		for _, a := range args {
			switch a.Mode {
			case MatchSemantic:
				semantic++
			case MatchRegex:
				regex++
			case "":
				t.Errorf("case %s: %s has no mode after Validate", c.ID, a.Name)
			}
		}
	}
	for _, chk := range []struct {
		what     string
		got, min int
	}{
		{"cases", len(s.Cases), 20}, {"negative cases", negative, 4}, {"chains", chains, 2},
		{"hard cases", hard, 1}, {"soft cases", soft, 1}, {"rubrics", rubrics, 1},
		{"rubric files", rubricFiles, 1}, {"semantic matches", semantic, 1}, {"regex matches", regex, 1},
	} {
		if chk.got < chk.min {
			t.Errorf("tasks.yaml has %d %s, want at least %d", chk.got, chk.what, chk.min)
		}
	}
}

// TestParseFull pins how every key of testdata/full.yaml is read, the
// defaults and the schema-derived match modes included.
func TestParseFull(t *testing.T) {
	t.Parallel()
	path := filepath.Join("testdata", "full.yaml")
	s, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(taskstest.WeatherTools(t)); err != nil {
		t.Fatal(err)
	}
	raw := func(s string) json.RawMessage { return json.RawMessage(s) }
	sendStub := raw(`{"content":[{"text":"queued","type":"text"}]}`)
	confirm := raw(`{"action":"accept","content":{"ok":true}}`)
	want := []*Case{
		{
			ID: "full-weather", Description: "every single-tool key", Prompt: "Weather in Paris, in fahrenheit?",
			System: "Answer in one sentence.", ExpectTool: "get_weather", AcceptTools: []string{"get_weather"}, Selection: SelectTurn,
			Args: []*ArgCheck{
				{Name: "city", Expected: raw(`"paris"`), Mode: MatchNormalized, Line: 20, explicit: true},
				{Name: "units", Expected: raw(`"fahrenheit"`), Mode: MatchExact, Line: 21},
			},
			Kind: KindSoft, Floor: 0.6, Rubric: "The answer names the temperature the tool returned.\n",
			RubricFile: "rubrics/full.md", MaxTurns: 2, Runs: 7, Tags: []string{"weather", "full"},
			Stubs:          map[string]json.RawMessage{"send_email": sendStub, "get_weather": raw(`"{\"temperature\": 72.3}"`)},
			InputResponses: map[string]json.RawMessage{"confirm": raw(`{"action":"decline"}`)},
			File:           path, Line: 14,
		},
		{
			ID: "full-invoices", Prompt: "Acme's last 5 invoices since March", System: "Be brief.", ExpectTool: "search_invoices", AcceptTools: []string{"search_invoices"}, Selection: SelectTurn,
			Args: []*ArgCheck{
				{Name: "customer", Expected: raw(`"^acme"`), Mode: MatchRegex, Line: 38, explicit: true},
				{Name: "limit", Expected: raw(`5`), Mode: MatchNumber, Tolerance: 1, Line: 39, explicit: true},
				{Name: "since", Expected: raw(`"2026-03-01"`), Mode: MatchExact, Line: 40},
				{Name: "status", Expected: raw(`null`), Mode: MatchAny, Line: 41, explicit: true},
			},
			Kind: KindHard, Floor: 1, MaxTurns: 4, Runs: 3,
			Stubs:          map[string]json.RawMessage{"send_email": sendStub},
			InputResponses: map[string]json.RawMessage{"confirm": confirm},
			File:           path, Line: 34,
		},
		{
			ID: "full-chain", Prompt: "Weather in Paris, then mail it to ana@example.com", System: "Be brief.", Selection: SelectTurn,
			Sequence: []*Step{
				{Tool: "get_weather", Line: 49},
				{Tool: "send_email", Line: 50, Args: []*ArgCheck{
					{Name: "body", Expected: raw(`"Paris"`), Mode: MatchContains, Line: 51, explicit: true},
					{Name: "subject", Mode: MatchAny, Line: 52, explicit: true},
					{Name: "to", Expected: raw(`"ana@example.com"`), Mode: MatchExact, Line: 51},
				}},
			},
			Kind: KindHard, Floor: 1, Rubric: "The email states the weather in Paris.", MaxTurns: 4, Runs: 3,
			Stubs:          map[string]json.RawMessage{"send_email": sendStub},
			InputResponses: map[string]json.RawMessage{"confirm": confirm},
			File:           path, Line: 46,
		},
		{
			ID: "full-negative", Prompt: "Hello", System: "Be brief.", Negative: true, Selection: SelectTurn, Kind: KindHard, Floor: 1,
			MaxTurns: 4, Runs: 3, Stubs: map[string]json.RawMessage{"send_email": sendStub},
			InputResponses: map[string]json.RawMessage{"confirm": confirm},
			File:           path, Line: 54,
		},
		{
			ID: "full-negative-flag", Prompt: "Thanks, that's all.", System: "Be brief.", Negative: true, Selection: SelectTurn, Kind: KindHard, Floor: 1,
			MaxTurns: 4, Runs: 3, Stubs: map[string]json.RawMessage{"send_email": sendStub},
			InputResponses: map[string]json.RawMessage{"confirm": confirm},
			File:           path, Line: 57,
		},
	}
	opts := cmp.Options{
		cmp.AllowUnexported(Case{}, ArgCheck{}),
		cmpopts.IgnoreFields(Case{}, "toolLine", "stubLines", "forbidLine"),
		cmpopts.IgnoreFields(ArgCheck{}, "re"),
		cmp.Comparer(func(a, b json.RawMessage) bool { return string(a) == string(b) }),
	}
	if diff := cmp.Diff(want, s.Cases, opts); diff != "" {
		t.Errorf("cases (-want +got):\n%s", diff)
	}
	if s.Version != 1 || s.Defaults.Kind != KindHard || s.Defaults.Runs != 3 || s.Defaults.MaxTurns != 4 {
		t.Errorf("defaults: %+v", s.Defaults)
	}
	if !s.NeedsJudge() {
		t.Error("NeedsJudge is false with two rubrics")
	}
}

// TestParseErrors pins the message of each mistake, with its file:line.
func TestParseErrors(t *testing.T) {
	t.Parallel()
	const head = "version: 1\ncases:\n"
	tests := []struct {
		name string
		yaml string
		want []string
	}{
		{"invalid YAML", "version: 1\ncases:\n  - id: a\n    prompt: x: y\n",
			[]string{"t.yaml:4: invalid YAML: mapping values are not allowed in this context"}},
		{"unterminated quote", "version: 1\ncases: 'x\n",
			[]string{"t.yaml:2: invalid YAML: found unexpected end of stream"}},
		{"empty file", "", []string{"t.yaml: the golden file is empty; it needs version: 1 and a list of cases"}},
		{"comments only", "# nothing\n", []string{"t.yaml: the golden file is empty; it needs version: 1 and a list of cases"}},
		{"two documents", head + "  - {id: a, prompt: p, negative: true}\n---\nversion: 1\n",
			[]string{"t.yaml:4: a second YAML document (---); the golden file must be one document"}},
		{"a scalar", "just text\n", []string{"t.yaml:1: " + shapeHelp}},
		{"list form, bad case", "- id: a\n", []string{`t.yaml:1: case "a": missing prompt`,
			`t.yaml:1: case "a": say what the model should do: expect_tool (a tool name, or null when it must call no tool), expect_sequence, or negative: true`}},
		{"list form, version inside", "- version: 1\n", []string{`t.yaml:1: case without an id`, `t.yaml:1: case: unknown key "version"`,
			`t.yaml:1: case: missing prompt`, `t.yaml:1: case: say what the model should do: expect_tool (a tool name, or null when it must call no tool), expect_sequence, or negative: true`}},
		{"list form, empty", "[]\n", []string{"t.yaml:1: cases is empty"}},
		{"prompt and query", head + "  - id: a\n    prompt: p\n    query: q\n    negative: true\n",
			[]string{`t.yaml:5: case "a": prompt and query are the same thing (the user's message); give one`}},
		{"no version", "cases:\n  - {id: a, prompt: p, negative: true}\n", []string{"t.yaml:1: missing version: 1 at the top of the file"}},
		{"version 2", "version: 2\ncases:\n  - {id: a, prompt: p, negative: true}\n",
			[]string{"t.yaml:1: unsupported version 2; this mcp-eval reads version 1"}},
		{"no cases", "version: 1\n", []string{"t.yaml:1: missing cases: the list of golden cases"}},
		{"empty cases", "version: 1\ncases: []\n", []string{"t.yaml:2: cases is empty"}},
		{"unknown top key", "version: 1\ndefault:\n  kind: hard\ncases:\n  - {id: a, prompt: p, negative: true}\n",
			[]string{`t.yaml:2: unknown key "default" (did you mean "defaults"?)`}},
		{"unknown case key", head + "  - id: a\n    prompt: p\n    expect_tol: get_weather\n",
			[]string{`t.yaml:5: case "a": unknown key "expect_tol" (did you mean "expect_tool"?)`}},
		{"unknown key far from any", head + "  - id: a\n    prompt: p\n    negative: true\n    colour: red\n",
			[]string{`t.yaml:6: case "a": unknown key "colour"`}},
		{"duplicate id", head + "  - id: a\n    prompt: p\n    negative: true\n  - id: b\n    prompt: p\n    negative: true\n  - id: a\n    prompt: q\n    negative: true\n",
			[]string{`t.yaml:9: duplicate id "a" (first defined at line 3)`}},
		{"duplicate key", head + "  - id: a\n    prompt: p\n    prompt: q\n    negative: true\n",
			[]string{`t.yaml:5: duplicate key "prompt" (first at line 4)`}},
		{"tool and sequence", head + "  - id: a\n    prompt: p\n    expect_tool: get_weather\n    expect_sequence: [get_weather, send_email]\n",
			[]string{`t.yaml:5: case "a": expect_tool and expect_sequence are both set; a case checks one tool or one chain`}},
		{"bad kind", head + "  - id: a\n    prompt: p\n    negative: true\n    kind: firm\n",
			[]string{`t.yaml:6: case "a": kind must be hard or soft, got "firm"`}},
		{"bad regex", head + "  - id: a\n    prompt: p\n    expect_tool: get_weather\n    expect_args:\n      city: '(paris'\n    arg_match:\n      city: regex\n",
			[]string{"t.yaml:7: case \"a\": arg_match.city: bad regex \"(paris\": missing closing ): `(paris`"}},
		{"bad match mode", head + "  - id: a\n    prompt: p\n    expect_tool: get_weather\n    expect_args: {city: Paris}\n    arg_match: {city: normalised}\n",
			[]string{`t.yaml:7: case "a": arg_match.city: unknown match mode "normalised" (did you mean "normalized"?)`}},
		{"unknown match mode", head + "  - id: a\n    prompt: p\n    expect_tool: get_weather\n    expect_args: {city: Paris}\n    arg_match: {city: fuzzy}\n",
			[]string{`t.yaml:7: case "a": arg_match.city: unknown match mode "fuzzy" (want exact, normalized, semantic, regex, contains, number, any)`}},
		{"tolerance without number", head + "  - id: a\n    prompt: p\n    expect_tool: get_weather\n    expect_args: {city: Paris}\n    arg_match:\n      city: {mode: exact, tolerance: 1}\n",
			[]string{`t.yaml:8: case "a": arg_match.city: tolerance applies only to mode number`}},
		{"number of text", head + "  - id: a\n    prompt: p\n    expect_tool: search_invoices\n    expect_args: {limit: ten}\n    arg_match: {limit: number}\n",
			[]string{`t.yaml:6: case "a": arg_match.limit: number needs a number under expect_args, got "ten"`}},
		{"mode without value", head + "  - id: a\n    prompt: p\n    expect_tool: get_weather\n    arg_match: {city: exact}\n",
			[]string{`t.yaml:6: case "a": arg_match.city: exact needs an expected value under expect_args (only any works without one)`}},
		{"missing rubric file", head + "  - id: a\n    prompt: p\n    negative: true\n    rubric: {file: nope.md}\n",
			[]string{`t.yaml:6: case "a": rubric file nope.md: no such file or directory`}},
		{"rubric that looks like a file", head + "  - id: a\n    prompt: p\n    negative: true\n    rubric: rubrics/a.md\n",
			[]string{`t.yaml:6: case "a": rubric "rubrics/a.md" looks like a file name; write rubric: {file: rubrics/a.md} to read it from a file, or give the rubric's text`}},
		{"forgotten expectation", head + "  - id: a\n    prompt: p\n",
			[]string{`t.yaml:3: case "a": say what the model should do: expect_tool (a tool name, or null when it must call no tool), expect_sequence, or negative: true`}},
		{"negative with a tool", head + "  - id: a\n    prompt: p\n    negative: true\n    expect_tool: send_email\n",
			[]string{`t.yaml:6: case "a": negative: true but expect_tool names "send_email"; a negative case expects no tool call (expect_tool: null)`}},
		{"null tool, negative false", head + "  - id: a\n    prompt: p\n    negative: false\n    expect_tool: null\n",
			[]string{`t.yaml:6: case "a": expect_tool: null makes a negative case, but negative is false`}},
		{"negative with args", head + "  - id: a\n    prompt: p\n    expect_tool: ~\n    expect_args: {city: Paris}\n",
			[]string{`t.yaml:6: case "a": a negative case calls no tool, so it has no expect_args or arg_match`}},
		{"chain with case args", head + "  - id: a\n    prompt: p\n    expect_sequence: [get_weather]\n    expect_args: {city: Paris}\n",
			[]string{`t.yaml:6: case "a": with expect_sequence, put arguments on the steps: - {tool: NAME, expect_args: {...}}`}},
		{"bad step", head + "  - id: a\n    prompt: p\n    expect_sequence:\n      - get_weather\n      - [send_email]\n",
			[]string{`t.yaml:7: case "a": expect_sequence[1]: a step is a tool name or a mapping {tool, expect_args, arg_match}`}},
		{"step typo", head + "  - id: a\n    prompt: p\n    expect_sequence:\n      - {tool: get_weather, expect_arg: {city: Paris}}\n",
			[]string{`t.yaml:6: case "a": expect_sequence[0]: unknown key "expect_arg" (did you mean "expect_args"?)`}},
		{"no id, no prompt", head + "  - negative: true\n",
			[]string{`t.yaml:3: case without an id`, `t.yaml:3: case: missing prompt`}},
		{"bad id", head + "  - id: a b\n    prompt: p\n    negative: true\n",
			[]string{`t.yaml:3: id "a b": use letters, digits, '.', '_' and '-' (at most 128, starting with a letter or digit)`}},
		{"bad floor", head + "  - id: a\n    prompt: p\n    negative: true\n    floor: 1.5\n",
			[]string{`t.yaml:6: case "a": floor must be in (0, 1], got 1.5`}},
		{"bad max_turns", head + "  - id: a\n    prompt: p\n    negative: true\n    max_turns: 0\n",
			[]string{`t.yaml:6: case "a": max_turns must be between 1 and 100, got 0`}},
		{"runs as text", "version: 1\ndefaults:\n  runs: five\ncases:\n  - {id: a, prompt: p, negative: true}\n",
			[]string{`t.yaml:3: defaults: runs must be a whole number`}},
		{"negative not bool", head + "  - id: a\n    prompt: p\n    negative: yes\n",
			[]string{
				`t.yaml:3: case "a": say what the model should do: expect_tool (a tool name, or null when it must call no tool), expect_sequence, or negative: true`,
				`t.yaml:5: case "a": negative must be true or false`,
			}},
		{"merge key", "version: 1\nbase: &b {prompt: p, negative: true}\ncases:\n  - <<: *b\n    id: a\n",
			[]string{
				`t.yaml:2: unknown key "base" (did you mean "cases"?)`,
				`t.yaml:4: case "a": merge keys (<<) are not supported; put shared values under defaults`,
				`t.yaml:4: case "a": missing prompt`,
				`t.yaml:4: case "a": say what the model should do: expect_tool (a tool name, or null when it must call no tool), expect_sequence, or negative: true`,
			}},
		{"infinite number", head + "  - id: a\n    prompt: p\n    expect_tool: search_invoices\n    expect_args: {limit: .inf}\n",
			[]string{`t.yaml:6: case "a": expect_args.limit: .inf is not a number JSON can carry`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse([]byte(tt.yaml), "t.yaml")
			taskstest.WantErrors(t, err, tt.want)
			var one *yamlfile.Error
			if !errors.As(err, &one) || one.File != "t.yaml" {
				t.Errorf("errors.As(*Error) = %v", one)
			}
		})
	}
}

// TestLoadErrors covers what only Load meets: a missing file, and rubric
// files relative to the tasks file.
func TestLoadErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, err := Load(filepath.Join(dir, "none.yaml")); err == nil ||
		err.Error() != filepath.Join(dir, "none.yaml")+": cannot read the golden file: no such file or directory" {
		t.Errorf("missing file: %v", err)
	}
	sub := filepath.Join(dir, "golden")
	if err := os.MkdirAll(filepath.Join(sub, "rubrics"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sub, "rubrics", "ok.md"), []byte("Say hello.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sub, "rubrics", "empty.md"), []byte(" \n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tasks := filepath.Join(sub, "tasks.yaml")
	body := "version: 1\ncases:\n" +
		"  - {id: a, prompt: p, negative: true, rubric: {file: rubrics/ok.md}}\n" +
		"  - {id: b, prompt: p, negative: true, rubric: {file: rubrics/empty.md}}\n" +
		"  - {id: c, prompt: p, negative: true, rubric: {file: rubrics}}\n"
	if err := os.WriteFile(tasks, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(tasks)
	want := tasks + `:4: case "b": rubric file rubrics/empty.md is empty` + "\n" +
		tasks + `:5: case "c": rubric file rubrics: not a regular file (a directory); give the path of a file`
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
	if err := os.WriteFile(tasks, []byte(body[:strings.Index(body, "  - {id: b")]), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Load(tasks)
	if err != nil {
		t.Fatal(err)
	}
	if c := s.Cases[0]; c.Rubric != "Say hello.\n" || c.RubricFile != "rubrics/ok.md" {
		t.Errorf("rubric = %q from %q", c.Rubric, c.RubricFile)
	}
}

// TestValidateErrors checks the names against the server's tools.
func TestValidateErrors(t *testing.T) {
	t.Parallel()
	const src = `version: 1
defaults:
  stub_results:
    send_mail: queued
cases:
  - id: a
    prompt: p
    expect_tool: get_wether
  - id: b
    prompt: p
    expect_tool: get_weather
    expect_args:
      town: Paris
      units: kelvin
  - id: c
    prompt: p
    expect_sequence:
      - search_invoices
      - tool: delete_invoice
  - id: d
    prompt: p
    negative: true
    stub_results:
      send_email: queued
      launch_rockets: done
  - id: e
    prompt: p
    expect_tool: search_invoices
    expect_args:
      costumer: acme
      status: [open]
`
	s, err := Parse([]byte(src), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	err = s.Validate(taskstest.WeatherTools(t))
	want := []string{
		`t.yaml:4: defaults: stub_results: the server has no tool "send_mail" (did you mean "send_email"?)`,
		`t.yaml:8: case "a": expect_tool: the server has no tool "get_wether" (did you mean "get_weather"?)`,
		`t.yaml:13: case "b": expect_args: get_weather has no argument "town" (it takes city, units)`,
		`t.yaml:14: case "b": expect_args.units: "kelvin" is not one of the values get_weather accepts: "celsius", "fahrenheit"`,
		`t.yaml:19: case "c": expect_sequence[1]: the server has no tool "delete_invoice" (it offers get_weather, search_invoices, send_email)`,
		`t.yaml:25: case "d": stub_results: the server has no tool "launch_rockets" (it offers get_weather, search_invoices, send_email)`,
		`t.yaml:30: case "e": expect_args: search_invoices has no argument "costumer" (did you mean "customer"?)`,
		`t.yaml:31: case "e": expect_args.status: ["open"] is not one of the values search_invoices accepts: "open", "paid", "overdue"`,
	}
	taskstest.WantErrors(t, err, want)

	// No tools at all.
	err = s.Validate(nil)
	if err == nil || !strings.Contains(err.Error(), `t.yaml:8: case "a": expect_tool: the server has no tool "get_wether" (it lists no tools)`) {
		t.Errorf("Validate(nil) = %v", err)
	}
}

// TestDefaultModes checks the match mode each kind of property schema
// gives an argument that arg_match leaves open.
func TestDefaultModes(t *testing.T) {
	t.Parallel()
	tool := mcp.Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"object","properties":{
		"text":{"type":"string"},
		"enum":{"type":"string","enum":["a","b"]},
		"const":{"const":"x"},
		"date":{"type":"string","format":"date"},
		"email":{"type":"string","format":"email"},
		"num":{"type":"number"},
		"int":{"type":"integer"},
		"bool":{"type":"boolean"},
		"nullable":{"type":["string","null"]},
		"obj":{"type":"object"},
		"untyped":{},
		"untypedNum":{},
		"anyOf":{"anyOf":[{"type":"string"}]}
	}}`)}
	src := `version: 1
cases:
  - id: a
    prompt: p
    expect_tool: t
    expect_args:
      text: Hello
      enum: a
      const: x
      date: "2026-01-01"
      email: a@example.com
      num: 1.5
      int: 3
      bool: true
      nullable: x
      obj: {k: v}
      untyped: words
      untypedNum: 4
      anyOf: y
`
	s, err := Parse([]byte(src), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate([]mcp.Tool{tool}); err != nil {
		t.Fatal(err)
	}
	got := map[string]MatchMode{}
	for _, a := range s.Cases[0].Args {
		got[a.Name] = a.Mode
	}
	want := map[string]MatchMode{
		"text": MatchNormalized, "enum": MatchExact, "const": MatchExact, "date": MatchExact,
		"email": MatchExact, "num": MatchExact, "int": MatchExact, "bool": MatchExact,
		"nullable": MatchNormalized, "obj": MatchExact, "untyped": MatchNormalized,
		"untypedNum": MatchExact, "anyOf": MatchNormalized,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("modes (-want +got):\n%s", diff)
	}
	// Before Validate, the mode follows the value.
	s2, _ := Parse([]byte(src), "t.yaml")
	for _, a := range s2.Cases[0].Args {
		wantMode := MatchExact
		if _, ok := textOf(a.Expected); ok {
			wantMode = MatchNormalized
		}
		if a.Mode != "" || a.EffectiveMode() != wantMode {
			t.Errorf("%s before Validate: mode %q effective %q, want effective %q", a.Name, a.Mode, a.EffectiveMode(), wantMode)
		}
	}
}

func TestTask(t *testing.T) {
	t.Parallel()
	s, err := Load(filepath.Join("testdata", "full.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	tools := taskstest.WeatherTools(t)
	c := s.Cases[0]
	task := c.Task(tools, "gpt-test")
	zero := 0.0
	want := agent.Task{
		Model: "gpt-test", System: "Answer in one sentence.", Prompt: "Weather in Paris, in fahrenheit?",
		Tools: tools, MaxTurns: 2, Stubs: c.Stubs, InputResponses: c.InputResponses, Temperature: &zero,
	}
	if diff := cmp.Diff(want, task, cmpopts.IgnoreFields(agent.Task{}, "OnResult"),
		cmp.Comparer(func(a, b json.RawMessage) bool { return string(a) == string(b) })); diff != "" {
		t.Errorf("task (-want +got):\n%s", diff)
	}
	task.Stubs["get_weather"] = nil
	if c.Stubs["get_weather"] == nil {
		t.Error("Task shares its Stubs map with the case")
	}
	if got := c.RunsOr(5); got != 7 {
		t.Errorf("RunsOr = %d, want 7", got)
	}
	var ids []string
	for _, c := range s.Shard(2, 2) {
		ids = append(ids, c.ID)
	}
	if diff := cmp.Diff([]string{"full-invoices", "full-negative"}, ids); diff != "" {
		t.Errorf("shard 2/2 (-want +got):\n%s", diff)
	}
}

// TestParseBounds checks that the loader stops early on a file full of
// mistakes and on aliases that expand without end.
func TestParseBounds(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("version: 1\ncases:\n")
	for range 40 {
		b.WriteString("  - {prompt: p, negative: true}\n")
	}
	_, err := Parse([]byte(b.String()), "t.yaml")
	var es yamlfile.Errors
	if !errors.As(err, &es) || len(es) != maxErrors+1 || es[maxErrors].Error() != "t.yaml: more than 25 errors; fix these first" {
		t.Errorf("got %d errors, last %v", len(es), es[len(es)-1])
	}

	bomb := "version: 1\nx:\n  a: &a [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n"
	prev := "a"
	for _, n := range []string{"b", "c", "d", "e", "f", "g", "h", "i"} {
		bomb += "  " + n + ": &" + n + " [*" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + "]\n"
		prev = n
	}
	bomb += "cases:\n  - id: a\n    prompt: p\n    expect_tool: get_weather\n    expect_args: {city: *i}\n"
	_, err = Parse([]byte(bomb), "t.yaml")
	// Every YAML reader refuses it, before the golden file's own reading.
	if err == nil || err.Error() != "t.yaml:8: too many values: with its aliases expanded the file holds more than 200000" {
		t.Errorf("alias bomb: %v", err)
	}
}

// TestParseListForm reads the short form, a top-level list of cases, with
// every key the article shows: version 1 is implied, there are no
// defaults, and query is another name for prompt.
func TestParseListForm(t *testing.T) {
	t.Parallel()
	src := `- id: weather-basic
  query: What's the weather in Paris?
  expect_tool: get_weather
  expect_args:
    location: Paris
  arg_match: {location: semantic}
- id: chain
  prompt: Weather, then mail it.
  expect_sequence: [get_weather, send_email]
- id: small-talk
  prompt: Hi!
  expect_tool: null
`
	s, err := Parse([]byte(src), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !s.List || s.Version != Version || s.Defaults.Kind != KindSoft || len(s.Cases) != 3 {
		t.Fatalf("list form: List %v version %d kind %q cases %d", s.List, s.Version, s.Defaults.Kind, len(s.Cases))
	}
	c := s.Cases[0]
	if c.Prompt != "What's the weather in Paris?" || c.ExpectTool != "get_weather" || c.Kind != KindSoft || c.Floor != 0.8 {
		t.Errorf("weather-basic: %+v", c)
	}
	if len(c.Args) != 1 || c.Args[0].Name != "location" || c.Args[0].Mode != MatchSemantic {
		t.Errorf("weather-basic args: %+v", c.Args)
	}
	if !s.Cases[1].Chain() || len(s.Cases[1].Sequence) != 2 {
		t.Errorf("chain: %+v", s.Cases[1])
	}
	if !s.Cases[2].Negative {
		t.Errorf("small-talk is not negative")
	}
	// The shipped example parses too.
	if _, err := Load(seedExample); err != nil {
		t.Errorf("%s: %v", seedExample, err)
	}
}

// TestCaseFieldsCoverCaseKeys keeps the table of case key readers in step
// with caseKeys, the list the did-you-mean and the schema test read.
func TestCaseFieldsCoverCaseKeys(t *testing.T) {
	t.Parallel()
	for _, k := range caseKeys {
		if caseFields[k] == nil {
			t.Errorf("case key %q has no reader in caseFields", k)
		}
	}
	if len(caseFields) != len(caseKeys) {
		t.Errorf("caseFields has %d readers for %d caseKeys", len(caseFields), len(caseKeys))
	}
}
