package tasks

import (
	"fmt"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/mcp-eval/mcp-eval/internal/yamlfile"
)

// turnKeys are what one entry of turns: may hold: the user's message and
// what the model should do with it.
var turnKeys = []string{"prompt", "query", "expect_tool", "negative", "expect_args", "arg_match",
	"expect_sequence", "expect_answer", "forbid_tools", "selection"}

// caseOnlyKeys are the case keys that expectations of a multi-turn case
// must not hold at the top: they belong in its turns.
var caseOnlyKeys = []string{"expect_tool", "negative", "expect_args", "arg_match", "expect_sequence", "expect_answer", "selection"}

const maxTurnsPerCase = 20

// multiTurn finishes a case with turns:, parsing each turn as a case of
// its own (with the id "<id>.turn<N>", which its errors name).
func (p *parser) multiTurn(c *Case, n, turns *yaml.Node, promptSet bool, layer2 *yaml.Node, d *Defaults, ctx string) *Case {
	if promptSet {
		p.errorf(n.Line, "%sa case with turns takes its prompts from the turns; move prompt into the first turn", ctx)
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := resolve(n.Content[i]); slices.Contains(caseOnlyKeys, k.Value) {
			p.errorf(k.Line, "%s%s goes into a turn of a multi-turn case (each turn says what the model should do with it)", ctx, k.Value)
		}
	}
	if layer2 != nil {
		p.errorf(layer2.Line, "%sfaults and inject are not supported on a multi-turn case yet", ctx)
	}
	if turns.Kind != yaml.SequenceNode || len(turns.Content) == 0 || len(turns.Content) > maxTurnsPerCase {
		p.errorf(turns.Line, "%sturns must be a list of 1 to %d turns, each {prompt, expect_tool | expect_sequence | negative, …}", ctx, maxTurnsPerCase)
		return c
	}
	for i, item := range turns.Content {
		item = resolve(item)
		tctx := fmt.Sprintf("%sturns[%d]: ", ctx, i)
		if item.Kind != yaml.MappingNode {
			p.errorf(item.Line, "%sa turn is a mapping {prompt, expect_tool, …}", tctx)
			continue
		}
		bad := false
		p.fields(item, tctx, turnKeys, func(string, *yaml.Node, *yaml.Node) {})
		for j := 0; j+1 < len(item.Content); j += 2 {
			if !slices.Contains(turnKeys, resolve(item.Content[j]).Value) {
				bad = true
			}
		}
		if bad {
			continue
		}
		// Parse the turn as a case of its own: the same keys, the same
		// rules, and an id that names it in every message.
		withID := &yaml.Node{Kind: yaml.MappingNode, Line: item.Line, Column: item.Column,
			Content: append([]*yaml.Node{
				{Kind: yaml.ScalarNode, Tag: "!!str", Value: "id", Line: item.Line},
				{Kind: yaml.ScalarNode, Tag: "!!str", Value: fmt.Sprintf("%s.turn%d", c.ID, i+1), Line: item.Line},
			}, item.Content...)}
		t := p.caseItem(withID, &Defaults{Kind: c.Kind})
		if t != nil {
			c.Turns = append(c.Turns, t)
		}
	}
	if len(c.Turns) > 0 {
		c.Prompt = c.Turns[0].Prompt
	}
	// Floor is 0 when the case sets none (or a wrong one, already reported).
	c.applyDefaults(d, c.Floor != 0)
	c.Selection = SelectTurn
	return c
}

// FollowUps are the user messages after the first, of a multi-turn case.
func (c *Case) FollowUps() []string {
	if len(c.Turns) < 2 {
		return nil
	}
	out := make([]string, 0, len(c.Turns)-1)
	for _, t := range c.Turns[1:] {
		out = append(out, t.Prompt)
	}
	return out
}

// CheckModels checks every case's models: against the run's --models: a
// case may only narrow them, never name a model that has no provider.
func (s *Suite) CheckModels(models []string) error {
	var errs yamlfile.Errors
	for _, c := range s.Cases {
		for _, m := range c.Models {
			if !slices.Contains(models, m) {
				errs = append(errs, &yamlfile.Error{File: s.File, Line: c.modelsLine,
					Msg: fmt.Sprintf("case %q: models: %s is not one of --models (%s); a case's models narrow --models", c.ID, m, strings.Join(models, ", "))})
			}
		}
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}

// RunsOn reports whether the case runs on model (a provider:model spec).
func (c *Case) RunsOn(model string) bool {
	return len(c.Models) == 0 || slices.Contains(c.Models, model)
}
