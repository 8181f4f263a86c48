package tasks

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/mcp-eval/mcp-eval/internal/schema"
	"github.com/mcp-eval/mcp-eval/internal/yamlfile"
	"github.com/mcp-eval/mcp-eval/mcp"
)

// Validate checks the suite against the tools the server lists: every tool
// named in expect_tool, expect_sequence, stub_results, faults and inject
// must exist, and every argument in expect_args and inject.forbid_args must
// be a property of its tool's input schema (when the schema lists
// properties). An exact expected value must be one of the property's enum
// values, if it has an enum. Validate also fills in the match mode of each
// argument that arg_match leaves open, from the property's schema: exact for
// an enum or const, a number, integer or boolean, and for text with a format
// (date, email, uuid, uri…); normalized for other text. It may be called
// again with another tool list.
//
// The error, if any, is a yamlfile.Errors naming file:line for each problem; the CLI
// reports it and exits 2.
func (s *Suite) Validate(tools []mcp.Tool) error {
	v := &validator{file: s.File, tools: map[string]*toolInfo{}}
	for _, t := range tools {
		v.tools[t.Name] = newToolInfo(t)
	}
	v.names = slices.Sorted(maps.Keys(v.tools))

	for _, name := range slices.Sorted(maps.Keys(s.Defaults.stubLines)) {
		v.tool(s.Defaults.stubLines[name], "defaults: stub_results: ", name)
	}
	var all []*Case
	for _, c := range s.Cases {
		all = append(all, c)
		all = append(all, c.Turns...)
	}
	for _, c := range all {
		ctx := fmt.Sprintf("case %q: ", c.ID)
		for i, name := range c.AcceptTools {
			if t := v.tool(c.toolLine, ctx+"expect_tool: ", name); t != nil && i == 0 {
				// The match modes come from the first tool's schema; the
				// others are alternatives taking the same arguments.
				v.args(ctx, t, name, c.Args)
			}
		}
		for _, name := range c.ForbidTools {
			v.tool(c.forbidLine, ctx+"forbid_tools: ", name)
		}
		for i, st := range c.Sequence {
			sctx := fmt.Sprintf("%sexpect_sequence[%d]: ", ctx, i)
			if t := v.tool(st.Line, sctx, st.Tool); t != nil {
				v.args(sctx, t, st.Tool, st.Args)
			}
		}
		for _, name := range slices.Sorted(maps.Keys(c.stubLines)) {
			v.tool(c.stubLines[name], ctx+"stub_results: ", name)
		}
		v.resilienceKeys(c, ctx)
	}
	if len(v.errs) > 0 {
		slices.SortStableFunc(v.errs, func(a, b *yamlfile.Error) int { return a.Line - b.Line })
		return v.errs
	}
	return nil
}

type validator struct {
	file  string
	tools map[string]*toolInfo
	names []string
	errs  yamlfile.Errors
}

func (v *validator) errorf(line int, format string, args ...any) {
	v.errs = append(v.errs, &yamlfile.Error{File: v.file, Line: line, Msg: fmt.Sprintf(format, args...)})
}

// tool looks a tool up, recording an error naming the nearest tool.
func (v *validator) tool(line int, ctx, name string) *toolInfo {
	if t, ok := v.tools[name]; ok {
		return t
	}
	msg := fmt.Sprintf("%sthe server has no tool %q", ctx, name)
	switch near := nearest(name, v.names); {
	case len(v.names) == 0:
		msg += " (it lists no tools)"
	case near != "":
		msg += fmt.Sprintf(" (did you mean %q?)", near)
	default:
		msg += " (it offers " + listNames(v.names) + ")"
	}
	v.errorf(line, "%s", msg)
	return nil
}

// args checks the argument names against the tool's properties and sets
// the default match modes.
func (v *validator) args(ctx string, t *toolInfo, tool string, checks []*ArgCheck) {
	for _, a := range checks {
		prop, known := t.props[a.Name]
		if t.props != nil && !known {
			msg := fmt.Sprintf("%sexpect_args: %s has no argument %q", ctx, tool, a.Name)
			if near := nearest(a.Name, t.names); near != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", near)
			} else if len(t.names) > 0 {
				msg += " (it takes " + listNames(t.names) + ")"
			}
			v.errorf(a.Line, "%s", msg)
			continue
		}
		if !a.explicit {
			a.Mode = prop.defaultMode(a.Name, a.Expected)
			if err := a.compile(); err != nil {
				v.errorf(a.Line, "%sexpect_args.%s: %v", ctx, a.Name, err)
				continue
			}
		}
		if a.EffectiveMode() == MatchExact && len(prop.Enum) > 0 && a.Expected != nil {
			if !slices.ContainsFunc(prop.Enum, func(e json.RawMessage) bool { return jsonEqual(e, a.Expected) }) {
				vals := make([]string, len(prop.Enum))
				for i, e := range prop.Enum {
					vals[i] = clip(string(e))
				}
				v.errorf(a.Line, "%sexpect_args.%s: %s is not one of the values %s accepts: %s",
					ctx, a.Name, clip(string(a.Expected)), tool, strings.Join(vals, ", "))
				continue
			}
		}
		if literal(a.EffectiveMode()) && a.Expected != nil && known {
			if why := t.invalid(a.Name, asEnumMember(a, prop)); why != "" {
				v.errorf(a.Line, "%sexpect_args.%s: %s does not validate against %s's inputSchema: %s", ctx, a.Name, clip(string(a.Expected)), tool, why)
			}
		}
	}
}

func listNames(names []string) string {
	const limit = 12
	if len(names) > limit {
		return strings.Join(names[:limit], ", ") + fmt.Sprintf(" and %d more", len(names)-limit)
	}
	return strings.Join(names, ", ")
}

// literal reports whether a mode compares the expected value as written
// (so the value must be one the tool takes): exact, normalized and number
// do; a regex, contains, semantic or any check does not.
func literal(m MatchMode) bool {
	return m == MatchExact || m == MatchNormalized || m == MatchNumber
}

// asEnumMember is the expected value to hold to the schema: under
// normalized matching "paris" stands for the enum's "Paris", which is the
// value a right call sends.
func asEnumMember(a *ArgCheck, prop propSchema) json.RawMessage {
	want, ok := textOf(a.Expected)
	if a.EffectiveMode() != MatchNormalized || !ok {
		return a.Expected
	}
	for _, e := range prop.Enum {
		if s, ok := textOf(e); ok && Normalize(s) == Normalize(want) {
			return e
		}
	}
	return a.Expected
}

// toolInfo is what validation needs from a tool's input schema.
type toolInfo struct {
	props map[string]propSchema // nil when the schema lists no properties
	names []string              // property names, sorted
	raw   json.RawMessage       // the inputSchema, compiled on first use
	sch   *schema.Schema
	bad   bool // it does not compile: the server's problem (Layer 0's schema checks), not the golden file's
}

// invalid says why value does not validate as the property name of the
// tool's inputSchema, "" when it does (or cannot be told). The property is
// checked in place, in arguments built from the schema's own sample
// (schema.SampleArgs) with value in it, so that $refs, conditionals and
// required properties read as they do for a real call; only violations
// at the property count.
func (t *toolInfo) invalid(name string, value json.RawMessage) string {
	if t.sch == nil && !t.bad {
		var err error
		if t.sch, err = schema.Compile(t.raw); err != nil {
			t.bad = true
		}
	}
	if t.bad {
		return ""
	}
	args := schema.SampleArgs(t.raw)
	v, err := schema.DecodeJSON(value)
	if err != nil {
		return ""
	}
	args[name] = v
	b, _ := json.Marshal(args)
	inst, err := schema.DecodeJSON(b)
	if err != nil {
		return ""
	}
	var ve *schema.ValidationError
	if !errors.As(t.sch.Validate(inst), &ve) {
		return ""
	}
	at := "/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(name)
	for _, x := range ve.Violations {
		if x.Location == at || strings.HasPrefix(x.Location, at+"/") {
			if x.Location != at {
				return x.Location[len(at):] + ": " + x.Message
			}
			return x.Message
		}
	}
	return ""
}

// propSchema is the part of a property's schema that picks a match mode.
type propSchema struct {
	Type   json.RawMessage   `json:"type"`
	Enum   []json.RawMessage `json:"enum"`
	Const  json.RawMessage   `json:"const"`
	Format string            `json:"format"`
}

func newToolInfo(t mcp.Tool) *toolInfo {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	ti := &toolInfo{raw: t.InputSchema}
	if json.Unmarshal(t.InputSchema, &s) != nil || s.Properties == nil {
		return ti
	}
	ti.props = make(map[string]propSchema, len(s.Properties))
	for name, raw := range s.Properties {
		var p propSchema
		// A property schema that is not an object (true, false) or does
		// not decode says nothing about the type: modes follow the value.
		_ = json.Unmarshal(raw, &p)
		ti.props[name] = p
	}
	ti.names = slices.Sorted(maps.Keys(ti.props))
	return ti
}

// types returns the property's type names.
func (p propSchema) types() []string {
	var one string
	if json.Unmarshal(p.Type, &one) == nil {
		return []string{one}
	}
	var many []string
	_ = json.Unmarshal(p.Type, &many)
	return many
}

// idName and idValue recognise identifiers: an argument named id, *_id or
// *Id, and a value of letters and digits in parts joined by - _ . / : #,
// with at least one digit ("INV-10-12", "order_42", "a1b2").
var (
	idName  = regexp.MustCompile(`(?:^|_)(?i:id)$|[a-z]Id$|^ID$`)
	idValue = regexp.MustCompile(`^(?:[A-Za-z]*[0-9][A-Za-z0-9]*|[A-Za-z0-9]+(?:[-_./:#][A-Za-z0-9]+)+)$`)
)

// defaultMode is the mode an argument gets when arg_match leaves it open:
// exact where the schema pins the value down (enum, const,
// number, integer, boolean, formatted text), normalized for other text.
// Where the schema says nothing, the expected value decides.
func (p propSchema) defaultMode(name string, expected json.RawMessage) MatchMode {
	text, isText := textOf(expected)
	if expected == nil {
		return MatchAny
	}
	if len(p.Enum) > 0 || len(p.Const) > 0 {
		return MatchExact
	}
	// An identifier is matched exactly: normalizing "INV-10-12" would
	// make it equal "INV-1012", another invoice.
	if isText && (idName.MatchString(name) || idValue.MatchString(text) && strings.ContainsAny(text, "0123456789")) {
		return MatchExact
	}
	ts := p.types()
	if slices.Contains(ts, "string") {
		if p.Format != "" || !isText {
			return MatchExact
		}
		return MatchNormalized
	}
	if len(ts) > 0 {
		return MatchExact
	}
	if isText {
		return MatchNormalized
	}
	return MatchExact
}
