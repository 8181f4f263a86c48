package tasks

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/mcp-eval/mcp-eval/internal/readfile"
	"github.com/mcp-eval/mcp-eval/internal/suggest"
	"github.com/mcp-eval/mcp-eval/internal/yamlfile"
)

// Version is the tasks.yaml format version this package reads.
const Version = 1

// Kind says how strictly a case is gated.
type Kind string

// The two kinds. A hard case must pass every run; a soft case tolerates one
// failure in five (DESIGN.md, Layer 1).
const (
	KindHard Kind = "hard"
	KindSoft Kind = "soft"
)

// Floor returns the kind's default pass-rate floor: 1.0 for hard, 0.8 for soft.
func (k Kind) Floor() float64 {
	if k == KindHard {
		return 1.0
	}
	return 0.8
}

// Limits on what the loader reads. The tasks file is the user's own, but a
// mistaken path (a log file, a binary) should fail fast, not eat memory.
const (
	maxFileBytes   = 8 << 20
	maxRubricBytes = 256 << 10
	maxNodes       = 200_000 // YAML nodes visited while converting values, aliases expanded
	maxErrors      = 25
	maxTurnsLimit  = 100
	maxRunsLimit   = 1000
)

// Suite is a loaded golden set.
type Suite struct {
	// File is the path the suite was read from, as given; every error
	// names it.
	File    string
	Version int
	// List: the file is the short form, a top-level list of cases.
	List     bool
	Defaults Defaults
	// Cases in file order, with the defaults already applied.
	Cases []*Case
}

// Defaults are the values a case takes when it does not set its own.
type Defaults struct {
	Kind     Kind
	MaxTurns int
	Runs     int
	System   string
	// Stubs and InputResponses are merged into every case's (the case's
	// entry wins for the same tool or key).
	Stubs          map[string]json.RawMessage
	InputResponses map[string]json.RawMessage

	stubLines map[string]int
}

// Case is one golden case: a prompt and what the model should do with it.
type Case struct {
	ID          string
	Description string
	Prompt      string
	System      string
	// ExpectTool is the tool the model must select (the first of
	// AcceptTools). It is "" for a negative case (Negative) and for a chain
	// (Sequence).
	ExpectTool string
	// AcceptTools are the tools any of which is a right selection
	// (expect_tool as a list); one entry, ExpectTool, for a single tool.
	AcceptTools []string
	// Selection is how the selection is judged: SelectTurn (default: an
	// accepted tool is among the calls of the first turn that calls tools)
	// or SelectFirst (the very first call names it).
	Selection string
	// ForbidTools are tools the model must never call in the run; a call
	// of one fails the run whatever else it did.
	ForbidTools []string
	// Answer is expect_answer: deterministic checks of the final answer.
	Answer *AnswerCheck
	// Turns makes a multi-turn case: each is one user message, sent after
	// the model answered the one before, with its own expectations (a
	// Case holding only prompt and expectation fields). Prompt is then the
	// first turn's; the case's rubric, if any, grades the whole run.
	Turns []*Case
	// Models, when set, are the --models the case runs on (a subset).
	Models     []string
	modelsLine int
	// Vars are the values of vars: this case was expanded with.
	Vars map[string]string
	// Negative: the model must call no tool at all.
	Negative bool
	// Args are the arguments checked on the first call of ExpectTool,
	// sorted by name.
	Args []*ArgCheck
	// Sequence is a chain: every step's tool must be called, in this order
	// (the steps must be a subsequence of the calls).
	Sequence []*Step
	Kind     Kind
	// Floor is the pass rate the case must reach: Kind.Floor() unless the
	// case sets floor.
	Floor float64
	// Rubric is the text the judge grades the run against ("" for none);
	// RubricFile is where it was read from, if it came from a file.
	Rubric     string
	RubricFile string
	// MaxTurns bounds model calls (0: agent.DefaultMaxTurns). Runs is the
	// file's run count for the case (0: the caller's --runs).
	MaxTurns int
	Runs     int
	Tags     []string
	// Draft: written by mcp-eval init and not yet edited (draft: true). A
	// draft runs like any case; the summary counts the drafts.
	Draft bool
	// Stubs answer calls to the named tools with a fixed result instead of
	// executing them; InputResponses answer input_required requests by key.
	Stubs          map[string]json.RawMessage
	InputResponses map[string]json.RawMessage
	// Faults (faults:) and Inject (inject:) are the case's Layer 2 plan:
	// tool failures and prompt injections shown to the model. Layer 1 runs
	// ignore them; the resilience package runs and scores them.
	Faults []*Fault
	Inject *Inject

	// File and Line locate the case (its "- id:" item) in the tasks file.
	File string
	Line int

	toolLine   int            // line of expect_tool
	forbidLine int            // line of forbid_tools
	stubLines  map[string]int // line of each key of the case's own stub_results
}

// Selection modes (the case key selection).
const (
	SelectTurn  = "turn"
	SelectFirst = "first"
)

// Step is one step of a chain.
type Step struct {
	Tool string
	// Args are checked on the call this step is matched to: the k-th step
	// naming a tool is checked against the k-th call of that tool.
	Args []*ArgCheck
	Line int
}

// Chain reports whether the case is a chain (expect_sequence).
func (c *Case) Chain() bool { return len(c.Sequence) > 0 }

// ChecksArgs reports whether any argument is checked.
func (c *Case) ChecksArgs() bool {
	if len(c.Args) > 0 {
		return true
	}
	for _, s := range c.Sequence {
		if len(s.Args) > 0 {
			return true
		}
	}
	return false
}

// RunsOr returns the case's run count, or n when the file sets none. A
// --runs given explicitly on the command line overrides the file; that is
// the caller's choice to make.
func (c *Case) RunsOr(n int) int {
	if c.Runs > 0 {
		return c.Runs
	}
	return n
}

// Load reads and parses a tasks file. Every error it returns is a yamlfile.Errors
// naming the file (and the line, where there is one): the CLI reports it and
// exits 2.
func Load(path string) (*Suite, error) {
	return yamlfile.Load(path, maxFileBytes, "golden file", Parse)
}

// Parse parses a tasks file's contents; path names it in errors and is the
// base for rubric files given by relative path.
func Parse(data []byte, path string) (*Suite, error) {
	p := &parser{file: path, dir: filepath.Dir(path)}
	s := p.parse(data)
	if len(p.errs) > 0 {
		// In file order; the "too many errors" line stays last.
		n := min(len(p.errs), maxErrors)
		slices.SortStableFunc(p.errs[:n], func(a, b *yamlfile.Error) int { return a.Line - b.Line })
		return nil, p.errs
	}
	return s, nil
}

// Keys accepted at each level. The JSON Schema in docs/tasks.schema.json
// lists the same keys; a test keeps them in step.
var (
	topKeys      = []string{"version", "defaults", "cases"}
	defaultsKeys = []string{"kind", "max_turns", "runs", "system", "stub_results", "input_responses"}
	caseKeys     = []string{
		"id", "description", "prompt", "query", "system", "expect_tool", "negative", "expect_args",
		"arg_match", "expect_sequence", "kind", "floor", "rubric", "max_turns", "runs", "tags",
		"stub_results", "input_responses", "faults", "inject", "selection", "forbid_tools",
		"expect_answer", "turns", "models", "vars", "draft",
	}
	stepKeys     = []string{"tool", "expect_args", "arg_match"}
	argMatchKeys = []string{"mode", "tolerance"}
	rubricKeys   = []string{"file"}
)

// idPattern keeps ids usable as file names, JUnit names and waiver keys
// ("id@model").
var idPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

type parser struct {
	file  string
	dir   string
	errs  yamlfile.Errors
	nodes int
	// nodeVars holds the vars values each expanded case node was made with.
	nodeVars map[*yaml.Node]map[string]string
}

func (p *parser) errorf(line int, format string, args ...any) {
	if len(p.errs) == maxErrors {
		p.errs = append(p.errs, &yamlfile.Error{File: p.file, Msg: fmt.Sprintf("more than %d errors; fix these first", maxErrors)})
	}
	if len(p.errs) > maxErrors {
		return
	}
	p.errs = append(p.errs, &yamlfile.Error{File: p.file, Line: line, Msg: fmt.Sprintf(format, args...)})
}

func (p *parser) parse(data []byte) *Suite {
	doc, err := yamlfile.Document(p.file, data, maxFileBytes, "the golden file", "version: 1 and a list of cases")
	if err != nil {
		p.errs = append(p.errs, err)
		return nil
	}
	root := resolve(doc)
	switch root.Kind {
	case yaml.MappingNode:
	case yaml.SequenceNode:
		// The short form: the file is the list of cases itself, as in the
		// article that introduced the format. Version 1 is implied and there
		// are no defaults (every case is soft unless it says kind: hard).
		s := &Suite{File: p.file, Version: Version, Defaults: Defaults{Kind: KindSoft}, List: true}
		s.Cases = p.caseList(root, &s.Defaults)
		return s
	default:
		p.errorf(root.Line, "%s", shapeHelp)
		return nil
	}

	s := &Suite{File: p.file}
	var casesNode, defaultsNode *yaml.Node
	sawVersion := false
	p.fields(root, "", topKeys, func(key string, k, v *yaml.Node) {
		switch key {
		case "version":
			sawVersion = true
			n, ok := p.intValue(v, "version")
			if ok && n != Version {
				p.errorf(v.Line, "unsupported version %d; this mcp-eval reads version %d", n, Version)
			}
			s.Version = n
		case "defaults":
			defaultsNode = v
		case "cases":
			casesNode = v
		}
	})
	if !sawVersion {
		p.errorf(root.Line, "missing version: 1 at the top of the file")
	}
	if defaultsNode != nil {
		s.Defaults = p.defaults(defaultsNode)
	}
	if s.Defaults.Kind == "" {
		s.Defaults.Kind = KindSoft
	}
	switch {
	case casesNode == nil:
		p.errorf(root.Line, "missing cases: the list of golden cases")
	case casesNode.Kind != yaml.SequenceNode:
		p.errorf(casesNode.Line, "cases must be a list")
	default:
		s.Cases = p.caseList(casesNode, &s.Defaults)
	}
	return s
}

// shapeHelp is the message for a file that is neither accepted form.
const shapeHelp = `the golden file must be either a list of cases:
  - id: weather-paris
    prompt: What's the weather in Paris?
    expect_tool: get_weather
or a mapping with version, defaults and cases:
  version: 1
  defaults: {kind: soft}
  cases:
    - id: weather-paris
      prompt: What's the weather in Paris?
      expect_tool: get_weather`

// caseList parses a list of cases (the cases: value, or the whole file in
// the short form), refusing duplicate ids.
func (p *parser) caseList(n *yaml.Node, d *Defaults) []*Case {
	if len(n.Content) == 0 {
		p.errorf(n.Line, "cases is empty")
		return nil
	}
	var out []*Case
	firstLine := map[string]int{}
	var items []*yaml.Node
	for _, item := range n.Content {
		items = append(items, p.expandVars(resolve(item))...)
	}
	for _, item := range items {
		c := p.caseItem(item, d)
		if c == nil {
			continue
		}
		if c.ID != "" {
			if first, dup := firstLine[c.ID]; dup {
				p.errorf(c.Line, "duplicate id %q (first defined at line %d)", c.ID, first)
				continue
			}
			firstLine[c.ID] = c.Line
		}
		out = append(out, c)
	}
	return out
}

// resolve follows aliases (*name) to the node they point at.
func resolve(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 100; i++ {
		n = n.Alias
	}
	return n
}

// fields walks a mapping: keys must be plain scalars, unique, and (when
// known is not nil) among known; fn gets each key with its resolved value.
// ctx prefixes messages ("case \"x\": ").
func (p *parser) fields(n *yaml.Node, ctx string, known []string, fn func(key string, k, v *yaml.Node)) {
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := resolve(n.Content[i]), resolve(n.Content[i+1])
		if k.Tag == "!!merge" {
			p.errorf(k.Line, "%smerge keys (<<) are not supported; put shared values under defaults", ctx)
			continue
		}
		if k.Kind != yaml.ScalarNode {
			p.errorf(k.Line, "%skeys must be plain names", ctx)
			continue
		}
		if first, dup := seen[k.Value]; dup {
			p.errorf(k.Line, "%sduplicate key %q (first at line %d)", ctx, k.Value, first)
			continue
		}
		seen[k.Value] = k.Line
		if known != nil && !slices.Contains(known, k.Value) {
			msg := fmt.Sprintf("%sunknown key %q", ctx, k.Value)
			if s := nearest(k.Value, known); s != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
			}
			p.errorf(k.Line, "%s", msg)
			continue
		}
		fn(k.Value, k, v)
	}
}

func (p *parser) defaults(n *yaml.Node) Defaults {
	var d Defaults
	if n.Kind != yaml.MappingNode {
		if !isNull(n) {
			p.errorf(n.Line, "defaults must be a mapping")
		}
		return d
	}
	const ctx = "defaults: "
	p.fields(n, ctx, defaultsKeys, func(key string, k, v *yaml.Node) {
		switch key {
		case "kind":
			d.Kind = p.kind(v, ctx)
		case "max_turns":
			d.MaxTurns = p.boundedInt(v, ctx+"max_turns", maxTurnsLimit)
		case "runs":
			d.Runs = p.boundedInt(v, ctx+"runs", maxRunsLimit)
		case "system":
			d.System, _ = p.str(v, ctx+"system", false)
		case "stub_results":
			d.Stubs, d.stubLines = p.jsonMap(v, ctx+"stub_results")
		case "input_responses":
			d.InputResponses, _ = p.jsonMap(v, ctx+"input_responses")
		}
	})
	return d
}

func (p *parser) sequence(n *yaml.Node, ctx string) []*Step {
	if n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
		p.errorf(n.Line, "%sexpect_sequence must be a non-empty list of tool names (or {tool, expect_args, arg_match} steps)", ctx)
		return nil
	}
	var steps []*Step
	for i, item := range n.Content {
		item = resolve(item)
		sctx := fmt.Sprintf("%sexpect_sequence[%d]: ", ctx, i)
		st := &Step{Line: item.Line}
		switch item.Kind {
		case yaml.ScalarNode:
			st.Tool, _ = p.str(item, strings.TrimSuffix(sctx, ": "), true)
		case yaml.MappingNode:
			var ea, am *yaml.Node
			p.fields(item, sctx, stepKeys, func(key string, k, v *yaml.Node) {
				switch key {
				case "tool":
					st.Tool, _ = p.str(v, sctx+"tool", true)
				case "expect_args":
					ea = v
				case "arg_match":
					am = v
				}
			})
			if st.Tool == "" {
				p.errorf(item.Line, "%smissing tool", sctx)
			}
			if ea != nil || am != nil {
				st.Args = p.argChecks(ea, am, sctx)
			}
		default:
			p.errorf(item.Line, "%sa step is a tool name or a mapping {tool, expect_args, arg_match}", sctx)
		}
		steps = append(steps, st)
	}
	return steps
}

// argChecks parses expect_args with its arg_match into checks sorted by
// argument name.
func (p *parser) argChecks(expectArgs, argMatch *yaml.Node, ctx string) []*ArgCheck {
	byName := map[string]*ArgCheck{}
	var names []string
	if expectArgs != nil {
		if expectArgs.Kind != yaml.MappingNode {
			p.errorf(expectArgs.Line, "%sexpect_args must be a mapping of argument name to expected value", ctx)
		} else {
			p.fields(expectArgs, ctx+"expect_args: ", nil, func(key string, k, v *yaml.Node) {
				raw, ok := p.toJSON(v, ctx+"expect_args."+key)
				if !ok {
					return
				}
				byName[key] = &ArgCheck{Name: key, Expected: raw, Line: k.Line}
				names = append(names, key)
			})
		}
	}
	if argMatch != nil {
		if argMatch.Kind != yaml.MappingNode {
			p.errorf(argMatch.Line, "%sarg_match must be a mapping of argument name to a match mode", ctx)
		} else {
			p.fields(argMatch, ctx+"arg_match: ", nil, func(key string, k, v *yaml.Node) {
				actx := ctx + "arg_match." + key
				mode, tol, ok := p.matchSpec(v, actx)
				if !ok {
					return
				}
				a := byName[key]
				if a == nil {
					if mode != MatchAny {
						p.errorf(k.Line, "%s: %s needs an expected value under expect_args (only any works without one)", actx, mode)
						return
					}
					a = &ArgCheck{Name: key, Line: k.Line}
					byName[key] = a
					names = append(names, key)
				}
				a.Mode, a.Tolerance, a.explicit = mode, tol, true
				if err := a.compile(); err != nil {
					p.errorf(a.Line, "%s: %v", actx, err)
				}
			})
		}
	}
	slices.Sort(names)
	out := make([]*ArgCheck, 0, len(names))
	for _, n := range names {
		out = append(out, byName[n])
	}
	return out
}

// matchSpec reads one arg_match value: a mode name, or {mode, tolerance}.
func (p *parser) matchSpec(v *yaml.Node, ctx string) (MatchMode, float64, bool) {
	var modeNode, tolNode *yaml.Node
	switch v.Kind {
	case yaml.ScalarNode:
		modeNode = v
	case yaml.MappingNode:
		p.fields(v, ctx+": ", argMatchKeys, func(key string, k, val *yaml.Node) {
			if key == "mode" {
				modeNode = val
			} else {
				tolNode = val
			}
		})
		if modeNode == nil {
			p.errorf(v.Line, "%s: missing mode", ctx)
			return "", 0, false
		}
	default:
		p.errorf(v.Line, "%s: want a match mode (%s) or {mode: number, tolerance: N}", ctx, modeList())
		return "", 0, false
	}
	s, ok := p.str(modeNode, ctx, true)
	if !ok {
		return "", 0, false
	}
	mode := MatchMode(s)
	if !slices.Contains(matchModes, mode) {
		p.errorf(modeNode.Line, "%s", unknownName(ctx, "match mode", s, enumNames(matchModes), modeList()))
		return "", 0, false
	}
	var tol float64
	if tolNode != nil {
		if mode != MatchNumber {
			p.errorf(tolNode.Line, "%s: tolerance applies only to mode number", ctx)
			return "", 0, false
		}
		f, ok := p.number(tolNode, ctx+".tolerance")
		if !ok {
			return "", 0, false
		}
		if f < 0 {
			p.errorf(tolNode.Line, "%s.tolerance must be 0 or more, got %v", ctx, f)
			return "", 0, false
		}
		tol = f
	}
	return mode, tol, true
}

func modeList() string { return strings.Join(enumNames(matchModes), ", ") }

// rubric reads inline text, or {file: path} relative to the tasks file.
func (p *parser) rubric(v *yaml.Node, ctx string) (text, file string) {
	switch v.Kind {
	case yaml.ScalarNode:
		s, ok := p.str(v, ctx+"rubric", true)
		if !ok {
			return "", ""
		}
		if looksLikePath(s) {
			p.errorf(v.Line, "%srubric %q looks like a file name; write rubric: {file: %s} to read it from a file, or give the rubric's text", ctx, s, s)
			return "", ""
		}
		return s, ""
	case yaml.MappingNode:
		var fileNode *yaml.Node
		p.fields(v, ctx+"rubric: ", rubricKeys, func(key string, k, val *yaml.Node) { fileNode = val })
		if fileNode == nil {
			p.errorf(v.Line, "%srubric: missing file", ctx)
			return "", ""
		}
		name, ok := p.str(fileNode, ctx+"rubric.file", true)
		if !ok {
			return "", ""
		}
		path := name
		if !filepath.IsAbs(path) {
			path = filepath.Join(p.dir, path)
		}
		b, err := readfile.Read(path, maxRubricBytes)
		if err != nil {
			p.errorf(fileNode.Line, "%srubric file %s: %s", ctx, name, readfile.Reason(err))
			return "", name
		}
		if strings.TrimSpace(string(b)) == "" {
			p.errorf(fileNode.Line, "%srubric file %s is empty", ctx, name)
			return "", name
		}
		return string(b), name
	default:
		p.errorf(v.Line, "%srubric must be text or {file: path}", ctx)
		return "", ""
	}
}

func looksLikePath(s string) bool {
	if strings.ContainsAny(s, " \t\n") {
		return false
	}
	ext := strings.ToLower(filepath.Ext(s))
	return ext == ".md" || ext == ".txt" || ext == ".markdown"
}

// Scalar readers. Each records an error and returns ok=false on a wrong
// type; what names the key in the message.

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

// str reads a scalar as text; YAML numbers and booleans keep the text as
// written (id: 2024 is the id "2024").
func (p *parser) str(n *yaml.Node, what string, required bool) (string, bool) {
	if n.Kind != yaml.ScalarNode || isNull(n) {
		if isNull(n) && !required {
			return "", true
		}
		p.errorf(n.Line, "%s must be text", what)
		return "", false
	}
	if required && strings.TrimSpace(n.Value) == "" {
		p.errorf(n.Line, "%s is empty", what)
		return "", false
	}
	return n.Value, true
}

// strOK reads required text as str does and clears *ok on an error, for
// readers that keep an entry only when all of it is right.
func (p *parser) strOK(n *yaml.Node, what string, ok *bool) string {
	s, good := p.str(n, what, true)
	*ok = *ok && good
	return s
}

func (p *parser) strList(n *yaml.Node, what string) []string {
	if n.Kind != yaml.SequenceNode {
		p.errorf(n.Line, "%s must be a list", what)
		return nil
	}
	var out []string
	for _, item := range n.Content {
		if s, ok := p.str(resolve(item), what+" item", true); ok {
			out = append(out, s)
		}
	}
	return out
}

func (p *parser) boolean(n *yaml.Node, what string) bool {
	var b bool
	if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" || n.Decode(&b) != nil {
		p.errorf(n.Line, "%s must be true or false", what)
		return false
	}
	return b
}

func (p *parser) intValue(n *yaml.Node, what string) (int, bool) {
	i, ok := yamlfile.Int(n)
	if !ok {
		p.errorf(n.Line, "%s must be a whole number", what)
	}
	return i, ok
}

func (p *parser) boundedInt(n *yaml.Node, what string, limit int) int {
	i, ok := p.intValue(n, what)
	if !ok {
		return 0
	}
	if i < 1 || i > limit {
		p.errorf(n.Line, "%s must be between 1 and %d, got %d", what, limit, i)
		return 0
	}
	return i
}

func (p *parser) number(n *yaml.Node, what string) (float64, bool) {
	var f float64
	if n.Kind != yaml.ScalarNode || (n.Tag != "!!int" && n.Tag != "!!float") || n.Decode(&f) != nil ||
		math.IsInf(f, 0) || math.IsNaN(f) {
		p.errorf(n.Line, "%s must be a number", what)
		return 0, false
	}
	return f, true
}

func (p *parser) kind(n *yaml.Node, ctx string) Kind {
	s, ok := p.str(n, ctx+"kind", true)
	if !ok {
		return ""
	}
	switch k := Kind(s); k {
	case KindHard, KindSoft:
		return k
	}
	p.errorf(n.Line, "%skind must be hard or soft, got %q", ctx, s)
	return ""
}

// jsonMap reads a mapping of name → any value as JSON, with each key's line.
func (p *parser) jsonMap(n *yaml.Node, what string) (map[string]json.RawMessage, map[string]int) {
	if n.Kind != yaml.MappingNode {
		if !isNull(n) {
			p.errorf(n.Line, "%s must be a mapping", what)
		}
		return nil, nil
	}
	out := map[string]json.RawMessage{}
	lines := map[string]int{}
	p.fields(n, what+": ", nil, func(key string, k, v *yaml.Node) {
		if raw, ok := p.toJSON(v, what+"."+key); ok {
			out[key] = raw
			lines[key] = k.Line
		}
	})
	return out, lines
}

// toJSON converts a YAML value to JSON. Numbers keep their value exactly as
// far as JSON allows; dates and other tagged scalars stay text as written
// (since: 2026-06-01 is the string "2026-06-01", as a tool expects).
func (p *parser) toJSON(n *yaml.Node, what string) (json.RawMessage, bool) {
	v, ok := p.value(n, what)
	if !ok {
		return nil, false
	}
	b, err := json.Marshal(v)
	if err != nil {
		p.errorf(n.Line, "%s: %v", what, err)
		return nil, false
	}
	return b, true
}

func (p *parser) value(n *yaml.Node, what string) (any, bool) {
	n = resolve(n)
	p.nodes++
	if p.nodes > maxNodes {
		p.errorf(n.Line, "%s: too many values (aliases expand to more than %d)", what, maxNodes)
		return nil, false
	}
	switch n.Kind {
	case yaml.MappingNode:
		m := map[string]any{}
		ok := true
		p.fields(n, what+": ", nil, func(key string, k, v *yaml.Node) {
			val, good := p.value(v, what+"."+key)
			ok = ok && good
			m[key] = val
		})
		return m, ok
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for i, item := range n.Content {
			val, good := p.value(item, fmt.Sprintf("%s[%d]", what, i))
			if !good {
				return nil, false
			}
			out = append(out, val)
		}
		return out, true
	case yaml.ScalarNode:
		switch n.Tag {
		case "!!null":
			return nil, true
		case "!!bool":
			var b bool
			if err := n.Decode(&b); err != nil {
				p.errorf(n.Line, "%s: %v", what, err)
				return nil, false
			}
			return b, true
		case "!!int":
			var i int64
			if err := n.Decode(&i); err == nil {
				return json.Number(strconv.FormatInt(i, 10)), true
			}
			var u uint64
			if err := n.Decode(&u); err == nil {
				return json.Number(strconv.FormatUint(u, 10)), true
			}
			p.errorf(n.Line, "%s: %s is not a number JSON can carry", what, n.Value)
			return nil, false
		case "!!float":
			var f float64
			if err := n.Decode(&f); err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
				p.errorf(n.Line, "%s: %s is not a number JSON can carry", what, n.Value)
				return nil, false
			}
			return json.Number(strconv.FormatFloat(f, 'g', -1, 64)), true
		default:
			return n.Value, true
		}
	}
	p.errorf(n.Line, "%s: unsupported YAML value", what)
	return nil, false
}

// nearest is the did-you-mean shared with the config file's errors.
func nearest(s string, candidates []string) string { return suggest.Nearest(s, candidates) }

// unknownName is the message for s, a what ("match mode") that is not one
// of names: the nearest name when one is close, else the whole list, want.
func unknownName(ctx, what, s string, names []string, want string) string {
	if near := nearest(s, names); near != "" {
		return fmt.Sprintf("%s: unknown %s %q (did you mean %q?)", ctx, what, s, near)
	}
	return fmt.Sprintf("%s: unknown %s %q (want %s)", ctx, what, s, want)
}

// enumNames are the values of an enum as strings.
func enumNames[T ~string](values []T) []string {
	out := make([]string, len(values))
	for i, v := range values {
		out[i] = string(v)
	}
	return out
}

// NeedsJudge reports whether some case has a rubric, so that the caller can
// refuse to start (exit 2) when no judge model is configured rather than
// error every such run.
func (s *Suite) NeedsJudge() bool {
	for _, c := range s.Cases {
		if c.Rubric != "" {
			return true
		}
	}
	return false
}

// HasSemantic reports whether some argument is matched semantic, which
// the judge decides when there is one.
func (s *Suite) HasSemantic() bool {
	for _, c := range s.Cases {
		checks := slices.Clone(c.Args)
		for _, st := range c.Sequence {
			checks = append(checks, st.Args...)
		}
		for _, a := range checks {
			if a.Mode == MatchSemantic {
				return true
			}
		}
	}
	return false
}

// Drafts counts the cases marked draft: true (mcp-eval init's, not yet
// edited): of a suite (s.Cases), or of the cases a run plans.
func Drafts(cases []*Case) int {
	n := 0
	for _, c := range cases {
		if c.Draft {
			n++
		}
	}
	return n
}
