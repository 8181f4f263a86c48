// Package surfacediff compares a server's tool surface with the baseline's
// and says how each tool changed: added or removed, its description or
// title reworded, its input and output schemas changed (a new required
// parameter, a type or enum widened or narrowed, a parameter removed, a
// constraint changed) and its annotations changed, a flip of readOnlyHint
// or destructiveHint called out as security-relevant. It reads the
// definitions report.Surface records (engine/surface); a tool that one
// side recorded by its hashes only is compared by hash. It imports only the
// standard library and report.
package surfacediff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/mcp-eval/mcp-eval/report"
)

// maxDepth bounds how deep schemas are walked; past it a difference is one
// constraint change at the path reached.
const maxDepth = 8

// maxValue bounds Before and After, in runes.
const maxValue = 200

// Diff compares cur with base, tool by tool (the first entry of a name
// counts), and returns the changes sorted by tool, then in the order they
// were found (the tool, its input schema, its output schema, its
// annotations). It returns nil when nothing changed.
func Diff(base, cur report.Surface) *report.SurfaceDiff {
	was, now := byName(base.Tools), byName(cur.Tools)
	var changes []report.SurfaceChange
	var undefined []string
	for _, name := range sortedNames(was, now) {
		b, inBase := was[name]
		c, inCur := now[name]
		switch {
		case !inBase:
			changes = append(changes, report.SurfaceChange{Tool: name, Kind: report.ChangeAdded})
		case !inCur:
			changes = append(changes, report.SurfaceChange{Tool: name, Kind: report.ChangeRemoved, Breaking: true})
		case b.Def() != nil && c.Def() != nil:
			changes = append(changes, tool(name, b, c)...)
		default:
			if ch := byHash(name, b, c); len(ch) > 0 {
				changes = append(changes, ch...)
				undefined = append(undefined, name)
			}
		}
	}
	if len(changes) == 0 {
		return nil
	}
	d := &report.SurfaceDiff{Changes: changes, Undefined: undefined}
	d.Tools = len(d.ChangedTools())
	for _, ch := range changes {
		if ch.Breaking {
			d.Breaking++
		}
		if ch.Security {
			d.Security++
		}
	}
	return d
}

func byName(items []report.SurfaceItem) map[string]report.SurfaceItem {
	m := make(map[string]report.SurfaceItem, len(items))
	for _, it := range items {
		if _, dup := m[it.Name]; !dup {
			m[it.Name] = it
		}
	}
	return m
}

func sortedNames(a, b map[string]report.SurfaceItem) []string {
	names := make([]string, 0, len(a)+len(b))
	for n := range a {
		names = append(names, n)
	}
	for n := range b {
		if _, ok := a[n]; !ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// byHash compares two tools by their hashes, for a side that recorded no
// definition: a hash that either side lacks is not compared.
func byHash(name string, b, c report.SurfaceItem) []report.SurfaceChange {
	differ := func(x, y report.Digest) bool { return !x.IsZero() && !y.IsZero() && x != y }
	var out []report.SurfaceChange
	if differ(b.DescriptionSHA256, c.DescriptionSHA256) {
		out = append(out, report.SurfaceChange{Tool: name, Kind: report.ChangeDescription})
	}
	if differ(b.InputSchemaSHA256, c.InputSchemaSHA256) {
		out = append(out, report.SurfaceChange{Tool: name, Kind: report.ChangeDefinition, Where: report.InInputSchema})
	}
	if differ(b.OutputSchemaSHA256, c.OutputSchemaSHA256) {
		out = append(out, report.SurfaceChange{Tool: name, Kind: report.ChangeDefinition, Where: report.InOutputSchema})
	}
	if differ(b.AnnotationsSHA256, c.AnnotationsSHA256) {
		out = append(out, report.SurfaceChange{Tool: name, Kind: report.ChangeDefinition, Where: report.InAnnotations})
	}
	if len(out) == 0 && differ(b.SHA256, c.SHA256) {
		out = append(out, report.SurfaceChange{Tool: name, Kind: report.ChangeDefinition})
	}
	return out
}

// tool compares two recorded definitions of one tool.
func tool(name string, bi, ci report.SurfaceItem) []report.SurfaceChange {
	b, c := bi.Def(), ci.Def()
	var out []report.SurfaceChange
	add := func(ch report.SurfaceChange) {
		ch.Tool = name
		out = append(out, ch)
	}
	if b.Description != c.Description {
		add(report.SurfaceChange{Kind: report.ChangeDescription, Before: short(b.Description), After: short(c.Description)})
	}
	if b.Title != c.Title {
		add(report.SurfaceChange{Kind: report.ChangeTitle, Before: short(b.Title), After: short(c.Title)})
	}
	w := &walker{add: add}
	w.where, w.input = report.InInputSchema, true
	w.schema("", decode(b.InputSchema), decode(c.InputSchema), 0)
	w.where, w.input = report.InOutputSchema, false
	w.schema("", decode(b.OutputSchema), decode(c.OutputSchema), 0)
	annotations(decode(b.Annotations), decode(c.Annotations), add)
	same := bi.DescriptionSHA256 == ci.DescriptionSHA256 && b.Title == c.Title && bi.InputSchemaSHA256 == ci.InputSchemaSHA256 &&
		bi.OutputSchemaSHA256 == ci.OutputSchemaSHA256 && bi.AnnotationsSHA256 == ci.AnnotationsSHA256
	if len(out) == 0 && same && bi.SHA256 != ci.SHA256 {
		// Another member changed (icons, execution, a new field); a
		// difference of spelling only in the members above (a hint made
		// explicit at its default) is none.
		add(report.SurfaceChange{Kind: report.ChangeDefinition})
	}
	return out
}

// decode reads recorded canonical JSON; absent is nil.
func decode(raw json.RawMessage) any {
	if len(raw) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return nil
	}
	return v
}

// annotationDefaults are the values the spec gives an absent hint
// (schema.ts ToolAnnotations: "Default: …"),
// https://modelcontextprotocol.io/specification/2025-11-25/schema#toolannotations.
var annotationDefaults = map[string]bool{"readOnlyHint": false, "destructiveHint": true, "idempotentHint": false, "openWorldHint": true}

// securityHints are the hints whose flip changes what a client lets a tool
// do unasked: a tool that stops being read-only, or becomes destructive,
// is no longer the tool that was approved (and the reverse widens what a
// client auto-approves).
var securityHints = map[string]bool{"readOnlyHint": true, "destructiveHint": true}

// annotations compares the annotations by their effective values: an
// absent hint has the spec's default, so {} and {"readOnlyHint": false}
// are the same.
func annotations(b, c any, add func(report.SurfaceChange)) {
	bm, _ := b.(map[string]any)
	cm, _ := c.(map[string]any)
	keys := map[string]bool{}
	for k := range bm {
		keys[k] = true
	}
	for k := range cm {
		keys[k] = true
	}
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range keys {
			if !yield(k) {
				return
			}
		}
	}) {
		bv, cv := effective(k, bm), effective(k, cm)
		if bv == cv {
			continue
		}
		add(report.SurfaceChange{Kind: report.ChangeAnnotation, Where: report.InAnnotations, Path: k,
			Before: bv, After: cv, Security: securityHints[k]})
	}
}

// effective is an annotation's value as text, its default when absent.
func effective(k string, m map[string]any) string {
	v, ok := m[k]
	if !ok || v == nil {
		if d, known := annotationDefaults[k]; known {
			return fmt.Sprint(d) + " (default)"
		}
		return "absent"
	}
	if b, isBool := v.(bool); isBool {
		if d, known := annotationDefaults[k]; known && b == d {
			// The same as the default, said as such so that "absent" and
			// the explicit default compare equal.
			return fmt.Sprint(b) + " (default)"
		}
	}
	return short(text(v))
}

// walker compares two schemas keyword by keyword.
type walker struct {
	add   func(report.SurfaceChange)
	where string
	// input: the schema is an inputSchema, where narrowing breaks callers;
	// in an outputSchema widening breaks consumers.
	input bool
}

// handled are the keywords schema compares itself; any other keyword that
// differs is a constraint change.
var handled = map[string]bool{"type": true, "enum": true, "const": true, "properties": true, "required": true, "items": true, "description": true, "title": true}

func (w *walker) schema(path string, b, c any, depth int) {
	bm, bok := b.(map[string]any)
	cm, cok := c.(map[string]any)
	if !bok || !cok || depth >= maxDepth {
		// true/false schemas, an absent schema, or too deep: compared
		// whole.
		if text(b) != text(c) {
			w.add(report.SurfaceChange{Kind: report.ChangeConstraint, Where: w.where, Path: path, Before: short(text(b)), After: short(text(c))})
		}
		return
	}
	w.typ(path, bm, cm)
	w.enum(path, bm, cm)
	if path != "" && str(bm["description"]) != str(cm["description"]) {
		w.add(report.SurfaceChange{Kind: report.ChangeParamDescription, Where: w.where, Path: path,
			Before: short(str(bm["description"])), After: short(str(cm["description"]))})
	}
	w.properties(path, bm, cm, depth)
	if bi, ci := bm["items"], cm["items"]; bi != nil || ci != nil {
		w.schema(join(path, "[]"), bi, ci, depth+1)
	}
	for _, k := range unionKeys(bm, cm) {
		if handled[k] {
			continue
		}
		if text(bm[k]) != text(cm[k]) {
			w.add(report.SurfaceChange{Kind: report.ChangeConstraint, Where: w.where, Path: join(path, k),
				Before: short(orAbsent(bm[k])), After: short(orAbsent(cm[k]))})
		}
	}
}

// properties compares the parameters of an object schema: added, removed,
// required or not, and each one's own schema.
func (w *walker) properties(path string, bm, cm map[string]any, depth int) {
	bp, _ := bm["properties"].(map[string]any)
	cp, _ := cm["properties"].(map[string]any)
	breq, creq := set(bm["required"]), set(cm["required"])
	for _, k := range unionKeys(bp, cp) {
		p := join(path, k)
		bs, inB := bp[k]
		cs, inC := cp[k]
		switch {
		case !inB && creq[k]:
			w.add(report.SurfaceChange{Kind: report.ChangeRequiredAdded, Where: w.where, Path: p, After: "required", Breaking: w.input})
		case !inB:
			w.add(report.SurfaceChange{Kind: report.ChangeParamAdded, Where: w.where, Path: p, After: "optional"})
		case !inC:
			// A caller that sent it may now be refused (additionalProperties
			// false) or silently ignored; a consumer that read it finds
			// nothing.
			w.add(report.SurfaceChange{Kind: report.ChangeParamRemoved, Where: w.where, Path: p, Breaking: true})
		default:
			switch {
			case !breq[k] && creq[k]:
				w.add(report.SurfaceChange{Kind: report.ChangeRequiredAdded, Where: w.where, Path: p, Before: "optional", After: "required", Breaking: w.input})
			case breq[k] && !creq[k]:
				w.add(report.SurfaceChange{Kind: report.ChangeRequiredRemoved, Where: w.where, Path: p, Before: "required", After: "optional", Breaking: !w.input})
			}
			w.schema(p, bs, cs, depth+1)
		}
	}
	// required names without a property of that name.
	for _, k := range unionKeys(boolMap(breq), boolMap(creq)) {
		if _, declared := cp[k]; declared {
			continue
		}
		if _, declared := bp[k]; declared {
			continue
		}
		switch {
		case !breq[k]:
			w.add(report.SurfaceChange{Kind: report.ChangeRequiredAdded, Where: w.where, Path: join(path, k), After: "required", Breaking: w.input})
		case !creq[k]:
			w.add(report.SurfaceChange{Kind: report.ChangeRequiredRemoved, Where: w.where, Path: join(path, k), Before: "required", After: "optional", Breaking: !w.input})
		}
	}
}

// allTypes are JSON Schema's types; number includes integer.
var allTypes = []string{"array", "boolean", "integer", "null", "number", "object", "string"}

// types is the set of JSON types a schema's "type" admits: every type when
// it has none, integer with number.
func types(m map[string]any) map[string]bool {
	out := map[string]bool{}
	switch t := m["type"].(type) {
	case nil:
		for _, x := range allTypes {
			out[x] = true
		}
	case string:
		out[t] = true
	case []any:
		for _, x := range t {
			if s, ok := x.(string); ok {
				out[s] = true
			}
		}
	}
	if out["number"] {
		out["integer"] = true
	}
	return out
}

func (w *walker) typ(path string, bm, cm map[string]any) {
	if text(bm["type"]) == text(cm["type"]) {
		return
	}
	bt, ct := types(bm), types(cm)
	kind := report.ChangeTypeChanged
	switch {
	case subset(bt, ct) && !subset(ct, bt):
		kind = report.ChangeTypeWidened
	case subset(ct, bt) && !subset(bt, ct):
		kind = report.ChangeTypeNarrowed
	case subset(bt, ct):
		return // the same set spelled otherwise (["integer","number"] vs "number")
	}
	w.add(report.SurfaceChange{Kind: kind, Where: w.where, Path: path, Before: short(orAny(bm["type"])), After: short(orAny(cm["type"])),
		Breaking: w.breaks(kind == report.ChangeTypeWidened, kind == report.ChangeTypeNarrowed)})
}

// values is the set of values an enum or const admits (canonical text),
// nil when unconstrained.
func values(m map[string]any) map[string]bool {
	if c, ok := m["const"]; ok {
		return map[string]bool{text(c): true}
	}
	e, ok := m["enum"].([]any)
	if !ok {
		return nil
	}
	out := map[string]bool{}
	for _, v := range e {
		out[text(v)] = true
	}
	return out
}

func (w *walker) enum(path string, bm, cm map[string]any) {
	bv, cv := values(bm), values(cm)
	if bv == nil && cv == nil {
		return
	}
	var kind string
	switch {
	case bv == nil:
		kind = report.ChangeEnumNarrowed // an enum imposed
	case cv == nil:
		kind = report.ChangeEnumWidened // the enum dropped
	case subset(bv, cv) && subset(cv, bv):
		return
	case subset(bv, cv):
		kind = report.ChangeEnumWidened
	case subset(cv, bv):
		kind = report.ChangeEnumNarrowed
	default:
		kind = report.ChangeEnumChanged
	}
	w.add(report.SurfaceChange{Kind: kind, Where: w.where, Path: path, Before: short(enumText(bv)), After: short(enumText(cv)),
		Breaking: w.breaks(kind == report.ChangeEnumWidened, kind == report.ChangeEnumNarrowed) || kind == report.ChangeEnumChanged})
}

// breaks says whether a widening or a narrowing breaks: narrowing an
// input refuses calls that were valid, widening an output gives consumers
// values they did not expect.
func (w *walker) breaks(widened, narrowed bool) bool {
	if w.input {
		return narrowed
	}
	return widened
}

func enumText(v map[string]bool) string {
	if v == nil {
		return "any"
	}
	return strings.Join(slices.Sorted(func(yield func(string) bool) {
		for k := range v {
			if !yield(k) {
				return
			}
		}
	}), ", ")
}

func subset(a, b map[string]bool) bool {
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}

func set(v any) map[string]bool {
	out := map[string]bool{}
	if l, ok := v.([]any); ok {
		for _, x := range l {
			if s, ok := x.(string); ok {
				out[s] = true
			}
		}
	}
	return out
}

func boolMap(m map[string]bool) map[string]any {
	out := make(map[string]any, len(m))
	for k := range m {
		out[k] = true
	}
	return out
}

func unionKeys(a, b map[string]any) []string {
	keys := make([]string, 0, len(a)+len(b))
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}

func join(path, k string) string {
	switch {
	case path == "":
		return k
	case k == "[]":
		return path + "[]"
	}
	return path + "." + k
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// text is a value as compact JSON (its canonical form, keys sorted).
func text(v any) string {
	if v == nil {
		return ""
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func orAbsent(v any) string {
	if v == nil {
		return "absent"
	}
	return text(v)
}

func orAny(v any) string {
	if v == nil {
		return "any"
	}
	if s, ok := v.(string); ok {
		return s
	}
	return text(v)
}

// short cuts a value to maxValue runes, marking the cut.
func short(s string) string {
	if utf8.RuneCountInString(s) <= maxValue {
		return s
	}
	r := []rune(s)
	return string(r[:maxValue-1]) + "…"
}
