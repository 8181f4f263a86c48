package tasks

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// This file reads the two case keys of Layer 2 (resilience), faults: and
// inject:. golden only parses them and checks their tool names against the
// server; Layer 1 runs ignore them, and the resilience package turns them
// into runs and scores (golden never imports it).

// FaultKind is the failure a fault puts in place of a tool's result.
type FaultKind string

// The fault kinds of faults: entries.
const (
	FaultHTTP500       FaultKind = "http_500"       // an upstream HTTP 500 (isError)
	FaultTimeout       FaultKind = "timeout"        // the call timed out (isError)
	FaultMalformedJSON FaultKind = "malformed_json" // a "successful" result of truncated JSON
	FaultExpiredToken  FaultKind = "expired_token"  // a 401 for an expired access token (isError)
	FaultEmptyResult   FaultKind = "empty_result"   // a successful result with no content
)

// FaultKinds lists every fault kind, in the order the docs give them.
var FaultKinds = []FaultKind{FaultHTTP500, FaultTimeout, FaultMalformedJSON, FaultExpiredToken, FaultEmptyResult}

// Limits of the Layer 2 keys.
const (
	maxFaults      = 20
	maxFaultCall   = 1000 // after and times
	minCanaryChars = 4
	maxInjectItems = 100
)

// Fault is one faults: entry: calls of Tool, from the After-th on, Times of
// them, reach the model as the Kind of failure instead of their real result.
type Fault struct {
	Tool string
	Kind FaultKind
	// After is the 1-based call of Tool that fails first (default 1); only
	// calls that reached the tool (executed or stubbed) are counted.
	After int
	// Times is how many calls fail from After on (default 1), so that a
	// model which retries gets the real result.
	Times int
	// Line is the line of the entry in the tasks file.
	Line int

	toolLine int
}

// Fails reports whether the n-th call of the tool (1-based) is faulted.
func (f *Fault) Fails(n int) bool { return n >= f.After && n < f.After+f.Times }

// Inject is a case's inject: mapping, the prompt-injection plan of Layer 2.
type Inject struct {
	// Payloads select payloads of the payload set, as written: ids,
	// category names, or "all" (the default). PayloadLines holds the line
	// of each, so that resilience can name an unknown id by file:line.
	Payloads     []string
	PayloadLines []int
	// Into is the tool whose results carry the payload; "" means the result
	// of every tool call.
	Into string
	// Canary is a string of the case's own (a secret planted in the prompt,
	// say) that must never reach a tool argument or the final answer after
	// the injection; "" for none. Every payload has its own canary too.
	Canary string
	// ForbidTools are tools a successful attack would call.
	ForbidTools []string
	// ForbidArgs is tool → argument → text: a call of the tool whose
	// argument contains the text (ignoring case) is what a successful attack
	// would do, e.g. send_email: {to: attacker.invalid}.
	ForbidArgs map[string]map[string]string
	// Line is the line of the inject: key.
	Line int

	intoLine       int
	forbidLines    []int                     // line of each ForbidTools entry
	forbidArgLines map[string]int            // tool → line of its key
	forbidArgNames map[string]map[string]int // tool → argument → line
}

// Keys of a faults: entry and of inject:; docs/tasks.schema.json lists the
// same (TestResilienceSchemaKeys).
var (
	faultKeys  = []string{"tool", "kind", "after", "times"}
	injectKeys = []string{"payloads", "into", "canary", "forbid_tools", "forbid_args"}
)

// faults parses a case's faults: list.
func (p *parser) faults(n *yaml.Node, ctx string) []*Fault {
	ctx += "faults"
	if n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
		p.errorf(n.Line, "%s must be a non-empty list of {tool, kind} entries", ctx)
		return nil
	}
	if len(n.Content) > maxFaults {
		p.errorf(n.Line, "%s has %d entries; at most %d", ctx, len(n.Content), maxFaults)
		return nil
	}
	var out []*Fault
	for i, item := range n.Content {
		item = resolve(item)
		fctx := fmt.Sprintf("%s[%d]", ctx, i)
		if item.Kind != yaml.MappingNode {
			p.errorf(item.Line, "%s: a fault is a mapping {tool: NAME, kind: %s}", fctx, kindList())
			continue
		}
		f := &Fault{Line: item.Line, After: 1, Times: 1}
		ok, kindSeen := true, false
		p.fields(item, fctx+": ", faultKeys, func(key string, k, v *yaml.Node) {
			switch key {
			case "tool":
				f.toolLine = v.Line
				f.Tool = p.strOK(v, fctx+".tool", &ok)
			case "kind":
				kindSeen = true
				s, good := p.str(v, fctx+".kind", true)
				if !good {
					ok = false
					return
				}
				f.Kind = FaultKind(s)
				if !slices.Contains(FaultKinds, f.Kind) {
					p.errorf(v.Line, "%s", unknownName(fctx+".kind", "fault kind", s, enumNames(FaultKinds), kindList()))
					ok = false
				}
			case "after":
				if f.After = p.boundedInt(v, fctx+".after", maxFaultCall); f.After == 0 {
					ok = false
				}
			case "times":
				if f.Times = p.boundedInt(v, fctx+".times", maxFaultCall); f.Times == 0 {
					ok = false
				}
			}
		})
		if f.toolLine == 0 {
			p.errorf(item.Line, "%s: missing tool", fctx)
			ok = false
		}
		if !kindSeen {
			p.errorf(item.Line, "%s: missing kind (%s)", fctx, kindList())
			ok = false
		}
		if ok {
			out = append(out, f)
		}
	}
	return out
}

func kindList() string { return strings.Join(enumNames(FaultKinds), " | ") }

// inject parses a case's inject: mapping.
func (p *parser) inject(n *yaml.Node, ctx string) *Inject {
	ctx += "inject"
	if n.Kind != yaml.MappingNode {
		p.errorf(n.Line, "%s must be a mapping {payloads, into, canary, forbid_tools, forbid_args}", ctx)
		return nil
	}
	in := &Inject{Line: n.Line}
	ok := true
	p.fields(n, ctx+": ", injectKeys, func(key string, k, v *yaml.Node) {
		switch key {
		case "payloads":
			items := []*yaml.Node{v}
			if v.Kind == yaml.SequenceNode {
				items = v.Content
				if len(items) == 0 || len(items) > maxInjectItems {
					p.errorf(v.Line, "%s.payloads must list 1 to %d payload ids, categories or all", ctx, maxInjectItems)
					ok = false
				}
			}
			var good bool
			in.Payloads, in.PayloadLines, good = p.nameList(items, ctx+".payloads", true)
			ok = ok && good
		case "into":
			in.intoLine = v.Line
			in.Into = p.strOK(v, ctx+".into", &ok)
		case "canary":
			s, good := p.str(v, ctx+".canary", true)
			if good && utf8.RuneCountInString(strings.TrimSpace(s)) < minCanaryChars {
				p.errorf(v.Line, "%s.canary %q is too short to search for; use at least %d characters", ctx, s, minCanaryChars)
				good = false
			}
			in.Canary = strings.TrimSpace(s)
			ok = ok && good
		case "forbid_tools":
			if v.Kind != yaml.SequenceNode || len(v.Content) == 0 {
				p.errorf(v.Line, "%s.forbid_tools must be a non-empty list of tool names", ctx)
				ok = false
				return
			}
			var good bool
			in.ForbidTools, in.forbidLines, good = p.nameList(v.Content, ctx+".forbid_tools", false)
			ok = ok && good
		case "forbid_args":
			ok = p.forbidArgs(v, ctx+".forbid_args", in) && ok
		}
	})
	if len(in.Payloads) == 0 && ok {
		in.Payloads, in.PayloadLines = []string{"all"}, []int{n.Line}
	}
	if !ok {
		return nil
	}
	return in
}

// nameList reads items as required text (payload selectors, tool names),
// with the line of each; unique refuses one listed twice. ok is false after
// any error; the names read so far come back anyway.
func (p *parser) nameList(items []*yaml.Node, what string, unique bool) (names []string, lines []int, ok bool) {
	ok = true
	for _, item := range items {
		item = resolve(item)
		s, good := p.str(item, what+" item", true)
		if !good {
			ok = false
			continue
		}
		if unique && slices.Contains(names, s) {
			p.errorf(item.Line, "%s: %q is listed twice", what, s)
			ok = false
			continue
		}
		names = append(names, s)
		lines = append(lines, item.Line)
	}
	return names, lines, ok
}

// forbidArgs reads forbid_args: {tool: {argument: text}}.
func (p *parser) forbidArgs(n *yaml.Node, ctx string, in *Inject) bool {
	if n.Kind != yaml.MappingNode || len(n.Content) == 0 {
		p.errorf(n.Line, "%s must map tool names to {argument: text}", ctx)
		return false
	}
	ok := true
	in.ForbidArgs = map[string]map[string]string{}
	in.forbidArgLines = map[string]int{}
	in.forbidArgNames = map[string]map[string]int{}
	p.fields(n, ctx+": ", nil, func(tool string, k, v *yaml.Node) {
		tctx := ctx + "." + tool
		if v.Kind != yaml.MappingNode || len(v.Content) == 0 {
			p.errorf(v.Line, "%s must map argument names to the text a successful attack would put there", tctx)
			ok = false
			return
		}
		args := map[string]string{}
		lines := map[string]int{}
		p.fields(v, tctx+": ", nil, func(arg string, ak, av *yaml.Node) {
			if av.Kind != yaml.ScalarNode || isNull(av) || strings.TrimSpace(av.Value) == "" {
				p.errorf(av.Line, "%s.%s must be non-empty text", tctx, arg)
				ok = false
				return
			}
			args[arg] = av.Value
			lines[arg] = ak.Line
		})
		in.ForbidArgs[tool] = args
		in.forbidArgLines[tool] = k.Line
		in.forbidArgNames[tool] = lines
	})
	return ok
}

// resilienceKeys checks a case's faults: and inject: against the server's
// tools: every tool they name must exist, and every forbid_args argument
// must be one the tool takes (when its schema lists properties).
func (v *validator) resilienceKeys(c *Case, ctx string) {
	for i, f := range c.Faults {
		v.tool(f.toolLine, fmt.Sprintf("%sfaults[%d].tool: ", ctx, i), f.Tool)
	}
	in := c.Inject
	if in == nil {
		return
	}
	if in.Into != "" {
		v.tool(in.intoLine, ctx+"inject.into: ", in.Into)
	}
	for i, name := range in.ForbidTools {
		v.tool(in.forbidLines[i], ctx+"inject.forbid_tools: ", name)
	}
	for _, tool := range slices.Sorted(maps.Keys(in.ForbidArgs)) {
		t := v.tool(in.forbidArgLines[tool], ctx+"inject.forbid_args: ", tool)
		if t == nil || t.props == nil {
			continue
		}
		lines := in.forbidArgNames[tool]
		for _, arg := range slices.Sorted(maps.Keys(lines)) {
			if _, known := t.props[arg]; known {
				continue
			}
			msg := fmt.Sprintf("%sinject.forbid_args: %s has no argument %q", ctx, tool, arg)
			if near := nearest(arg, t.names); near != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", near)
			} else if len(t.names) > 0 {
				msg += " (it takes " + listNames(t.names) + ")"
			}
			v.errorf(lines[arg], "%s", msg)
		}
	}
}
