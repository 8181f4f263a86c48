package tasks

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"gopkg.in/yaml.v3"
)

// caseReader holds what caseItem learns about one case while it walks the
// case's keys: the case so far, and what the checks that need more than one
// key (what the case expects, where its arguments go) look at afterwards.
type caseReader struct {
	p   *parser
	c   *Case
	ctx string // "case \"id\": ", the prefix of every message about the case

	expectArgs, argMatch, sequence *yaml.Node
	turns                          *yaml.Node
	layer2                         *yaml.Node // faults: or inject:, whichever came first

	toolSet, toolNull bool
	negSet, negative  bool
	floorSet          bool
	promptSet         bool
}

// caseFields reads each case key (caseKeys lists the same keys, in the order
// the did-you-mean and the schema test use; TestCaseFieldsCoverCaseKeys keeps
// the two in step).
var caseFields = map[string]func(r *caseReader, k, v *yaml.Node){
	"id": func(*caseReader, *yaml.Node, *yaml.Node) {}, // read first, by readID
	"description": func(r *caseReader, k, v *yaml.Node) {
		r.c.Description, _ = r.p.str(v, r.ctx+"description", false)
	},
	// query is the article's name for the user's message; both are
	// accepted, one per case.
	"prompt":      (*caseReader).prompt,
	"query":       (*caseReader).prompt,
	"system":      func(r *caseReader, k, v *yaml.Node) { r.c.System, _ = r.p.str(v, r.ctx+"system", false) },
	"expect_tool": (*caseReader).expectTool,
	"selection": func(r *caseReader, k, v *yaml.Node) {
		sel, ok := r.p.str(v, r.ctx+"selection", true)
		if ok && sel != SelectTurn && sel != SelectFirst {
			r.p.errorf(v.Line, "%sselection must be %s (an expected tool among the first turn's calls) or %s (the very first call), got %q", r.ctx, SelectTurn, SelectFirst, sel)
		}
		r.c.Selection = sel
	},
	"expect_answer": func(r *caseReader, k, v *yaml.Node) { r.c.Answer = r.p.answer(v, r.ctx) },
	"turns":         func(r *caseReader, k, v *yaml.Node) { r.turns = v },
	"models": func(r *caseReader, k, v *yaml.Node) {
		r.c.Models = r.p.strList(v, r.ctx+"models")
		r.c.modelsLine = v.Line
	},
	// vars: is expanded before the case is parsed (caseList).
	"vars": func(*caseReader, *yaml.Node, *yaml.Node) {},
	"forbid_tools": func(r *caseReader, k, v *yaml.Node) {
		r.c.ForbidTools = r.p.strList(v, r.ctx+"forbid_tools")
		r.c.forbidLine = v.Line
	},
	"negative": func(r *caseReader, k, v *yaml.Node) {
		r.negSet = true
		r.negative = r.p.boolean(v, r.ctx+"negative")
	},
	"expect_args":     func(r *caseReader, k, v *yaml.Node) { r.expectArgs = v },
	"arg_match":       func(r *caseReader, k, v *yaml.Node) { r.argMatch = v },
	"expect_sequence": func(r *caseReader, k, v *yaml.Node) { r.sequence = v },
	"kind":            func(r *caseReader, k, v *yaml.Node) { r.c.Kind = r.p.kind(v, r.ctx) },
	"floor": func(r *caseReader, k, v *yaml.Node) {
		r.floorSet = true
		f, ok := r.p.number(v, r.ctx+"floor")
		if ok && (f <= 0 || f > 1) {
			r.p.errorf(v.Line, "%sfloor must be in (0, 1], got %v", r.ctx, f)
		}
		r.c.Floor = f
	},
	"rubric": func(r *caseReader, k, v *yaml.Node) { r.c.Rubric, r.c.RubricFile = r.p.rubric(v, r.ctx) },
	"max_turns": func(r *caseReader, k, v *yaml.Node) {
		r.c.MaxTurns = r.p.boundedInt(v, r.ctx+"max_turns", maxTurnsLimit)
	},
	"runs":  func(r *caseReader, k, v *yaml.Node) { r.c.Runs = r.p.boundedInt(v, r.ctx+"runs", maxRunsLimit) },
	"tags":  func(r *caseReader, k, v *yaml.Node) { r.c.Tags = r.p.strList(v, r.ctx+"tags") },
	"draft": func(r *caseReader, k, v *yaml.Node) { r.c.Draft = r.p.boolean(v, r.ctx+"draft") },
	"stub_results": func(r *caseReader, k, v *yaml.Node) {
		r.c.Stubs, r.c.stubLines = r.p.jsonMap(v, r.ctx+"stub_results")
	},
	"input_responses": func(r *caseReader, k, v *yaml.Node) {
		r.c.InputResponses, _ = r.p.jsonMap(v, r.ctx+"input_responses")
	},
	"faults": func(r *caseReader, k, v *yaml.Node) {
		r.sawLayer2(k)
		r.c.Faults = r.p.faults(v, r.ctx)
	},
	"inject": func(r *caseReader, k, v *yaml.Node) {
		r.sawLayer2(k)
		r.c.Inject = r.p.inject(v, r.ctx)
	},
}

// caseItem parses one entry of cases. It returns nil when the entry is not
// a mapping; otherwise a case with whatever could be read, the errors
// recorded.
func (p *parser) caseItem(n *yaml.Node, d *Defaults) *Case {
	if n.Kind != yaml.MappingNode {
		p.errorf(n.Line, "each case must be a mapping with at least id and prompt")
		return nil
	}
	r := &caseReader{p: p, c: &Case{File: p.file, Line: n.Line, Vars: p.nodeVars[n]}}
	r.readID(n)
	p.fields(n, r.ctx, caseKeys, func(key string, k, v *yaml.Node) { caseFields[key](r, k, v) })
	if r.turns != nil {
		return p.multiTurn(r.c, n, r.turns, r.promptSet, r.layer2, d, r.ctx)
	}
	if !r.promptSet {
		p.errorf(n.Line, "%smissing prompt", r.ctx)
	}
	r.expectation(n)
	r.crossChecks(n)
	r.args()
	r.c.applyDefaults(d, r.floorSet)
	return r.c
}

// readID reads the id before any other key, so that every other message
// can name the case.
func (r *caseReader) readID(n *yaml.Node) {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := resolve(n.Content[i]); k.Kind == yaml.ScalarNode && k.Value == "id" {
			v := resolve(n.Content[i+1])
			id, ok := r.p.str(v, "id", true)
			if ok && !idPattern.MatchString(id) {
				r.p.errorf(v.Line, "id %q: use letters, digits, '.', '_' and '-' (at most 128, starting with a letter or digit)", id)
			}
			r.c.ID = id
			break
		}
	}
	r.ctx = "case: "
	if r.c.ID != "" {
		r.ctx = fmt.Sprintf("case %q: ", r.c.ID)
	} else {
		r.p.errorf(n.Line, "case without an id")
	}
}

func (r *caseReader) prompt(k, v *yaml.Node) {
	if r.promptSet {
		r.p.errorf(k.Line, "%sprompt and query are the same thing (the user's message); give one", r.ctx)
		return
	}
	r.promptSet = true
	r.c.Prompt, _ = r.p.str(v, r.ctx+k.Value, true)
}

// expectTool reads expect_tool: a name, a list of acceptable names, or null
// (a negative case).
func (r *caseReader) expectTool(k, v *yaml.Node) {
	c := r.c
	r.toolSet = true
	c.toolLine = v.Line
	switch {
	case isNull(v):
		r.toolNull = true
	case v.Kind == yaml.SequenceNode:
		c.AcceptTools = r.p.strList(v, r.ctx+"expect_tool")
		if len(c.AcceptTools) == 0 {
			r.p.errorf(v.Line, "%sexpect_tool: an empty list accepts nothing; name the acceptable tools, or write null for no tool", r.ctx)
			return
		}
		c.ExpectTool = c.AcceptTools[0]
	default:
		c.ExpectTool, _ = r.p.str(v, r.ctx+"expect_tool", true)
		if c.ExpectTool != "" {
			c.AcceptTools = []string{c.ExpectTool}
		}
	}
}

func (r *caseReader) sawLayer2(k *yaml.Node) {
	if r.layer2 == nil {
		r.layer2 = k
	}
}

// expectation settles what the case expects. A negative case must say so:
// a forgotten expect_tool must not silently become "call no tool".
func (r *caseReader) expectation(n *yaml.Node) {
	p, c, ctx := r.p, r.c, r.ctx
	switch {
	case r.sequence != nil && r.toolSet:
		p.errorf(c.toolLine, "%sexpect_tool and expect_sequence are both set; a case checks one tool or one chain", ctx)
	case r.sequence != nil && r.negSet && r.negative:
		p.errorf(r.sequence.Line, "%snegative: true and expect_sequence contradict each other", ctx)
	case r.sequence != nil:
		c.Sequence = p.sequence(r.sequence, ctx)
	case r.toolSet && !r.toolNull:
		if r.negSet && r.negative {
			p.errorf(c.toolLine, "%snegative: true but expect_tool names %q; a negative case expects no tool call (expect_tool: null)", ctx, c.ExpectTool)
		}
	case r.toolSet && r.toolNull:
		if r.negSet && !r.negative {
			p.errorf(c.toolLine, "%sexpect_tool: null makes a negative case, but negative is false", ctx)
		}
		c.Negative = true
	case r.negSet && r.negative:
		c.Negative = true
	case misspelledExpectation(n):
		// The unknown-key error already names the key that was meant.
	default:
		p.errorf(n.Line, "%ssay what the model should do: expect_tool (a tool name, or null when it must call no tool), expect_sequence, or negative: true", ctx)
	}
}

// crossChecks are the rules between keys once the expectation is known:
// selection, forbid_tools and Layer 2's keys against it.
func (r *caseReader) crossChecks(n *yaml.Node) {
	p, c, ctx := r.p, r.c, r.ctx
	if c.Selection != "" && c.ExpectTool == "" && c.Selection != SelectTurn {
		p.errorf(n.Line, "%sselection: %s applies to expect_tool; a chain or a negative case has no first call to judge", ctx, c.Selection)
	}
	if c.Selection == "" {
		c.Selection = SelectTurn
	}
	for _, f := range c.ForbidTools {
		if slices.Contains(c.AcceptTools, f) {
			p.errorf(c.forbidLine, "%s%s is both expected and forbidden", ctx, f)
		}
	}
	if c.Negative && r.layer2 != nil {
		p.errorf(r.layer2.Line, "%sa negative case calls no tool, so faults and inject would never fire", ctx)
	}
}

// args reads expect_args and arg_match, which belong to a single expected
// tool: a negative case has none, a chain puts them on its steps.
func (r *caseReader) args() {
	if r.expectArgs == nil && r.argMatch == nil {
		return
	}
	switch line := lineOf(r.expectArgs, r.argMatch); {
	case r.c.Negative:
		r.p.errorf(line, "%sa negative case calls no tool, so it has no expect_args or arg_match", r.ctx)
	case r.c.Chain():
		r.p.errorf(line, "%swith expect_sequence, put arguments on the steps: - {tool: NAME, expect_args: {...}}", r.ctx)
	default:
		r.c.Args = r.p.argChecks(r.expectArgs, r.argMatch, r.ctx)
	}
}

// applyDefaults fills what the case left unset from the file's defaults;
// floorSet says whether the case gave its own floor.
func (c *Case) applyDefaults(d *Defaults, floorSet bool) {
	if c.Kind == "" {
		c.Kind = d.Kind
	}
	if !floorSet {
		c.Floor = c.Kind.Floor()
	}
	if c.MaxTurns == 0 {
		c.MaxTurns = d.MaxTurns
	}
	if c.Runs == 0 {
		c.Runs = d.Runs
	}
	if c.System == "" {
		c.System = d.System
	}
	c.Stubs = mergeJSON(d.Stubs, c.Stubs)
	c.InputResponses = mergeJSON(d.InputResponses, c.InputResponses)
}

// misspelledExpectation reports whether the case has an unknown key that
// is a likely typo of expect_tool, expect_sequence or negative.
func misspelledExpectation(n *yaml.Node) bool {
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := resolve(n.Content[i])
		if k.Kind != yaml.ScalarNode || slices.Contains(caseKeys, k.Value) {
			continue
		}
		switch nearest(k.Value, caseKeys) {
		case "expect_tool", "expect_sequence", "negative":
			return true
		}
	}
	return false
}

func lineOf(ns ...*yaml.Node) int {
	for _, n := range ns {
		if n != nil {
			return n.Line
		}
	}
	return 0
}

// mergeJSON is base with over's entries on top (nil when both are empty).
func mergeJSON(base, over map[string]json.RawMessage) map[string]json.RawMessage {
	if len(base) == 0 && len(over) == 0 {
		return nil
	}
	out := make(map[string]json.RawMessage, len(base)+len(over))
	maps.Copy(out, base)
	maps.Copy(out, over)
	return out
}
