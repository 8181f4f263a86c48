package tasks

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/mcp-eval/mcp-eval/internal/canon"
	"gopkg.in/yaml.v3"
)

// AnswerCheck is expect_answer: deterministic assertions on the model's
// final answer that need no judge. Every assertion given must hold.
type AnswerCheck struct {
	// Contains and NotContains are texts the answer must (not) contain,
	// compared case-insensitively.
	Contains, NotContains []string
	// Regex must match somewhere in the answer (RE2; anchor it with ^…$
	// to match the whole answer).
	Regex string
	// Equals is the whole answer, leading and trailing space ignored.
	Equals *string
	// JSONPath maps a path ($.a.b[0]) into the answer, read as JSON, to
	// the value expected there, compared as JSON (numbers by value).
	JSONPath []PathCheck
	Line     int

	re *regexp.Regexp
}

// PathCheck is one json_path entry.
type PathCheck struct {
	Path     string
	Expected json.RawMessage
	steps    []pathStep
}

type pathStep struct {
	key   string
	index int // -1 for a key step
}

var answerKeys = []string{"contains", "not_contains", "regex", "equals", "json_path"}

func (p *parser) answer(n *yaml.Node, ctx string) *AnswerCheck {
	ctx += "expect_answer: "
	if n.Kind != yaml.MappingNode {
		p.errorf(n.Line, "%swant a mapping of %s", ctx, strings.Join(answerKeys, ", "))
		return nil
	}
	a := &AnswerCheck{Line: n.Line}
	texts := func(v *yaml.Node, what string) []string {
		if v.Kind == yaml.ScalarNode {
			s, ok := p.str(v, ctx+what, true)
			if !ok {
				return nil
			}
			return []string{s}
		}
		return p.strList(v, ctx+what)
	}
	p.fields(n, ctx, answerKeys, func(key string, k, v *yaml.Node) {
		switch key {
		case "contains":
			a.Contains = texts(v, "contains")
		case "not_contains":
			a.NotContains = texts(v, "not_contains")
		case "regex":
			s, ok := p.str(v, ctx+"regex", true)
			if !ok {
				return
			}
			re, err := regexp.Compile(s)
			if err != nil {
				p.errorf(v.Line, "%sbad regex %q: %v", ctx, s, err)
				return
			}
			a.Regex, a.re = s, re
		case "equals":
			s, ok := p.str(v, ctx+"equals", false)
			if ok {
				a.Equals = &s
			}
		case "json_path":
			if v.Kind != yaml.MappingNode {
				p.errorf(v.Line, "%sjson_path: want a mapping of path ($.a.b[0]) to the expected value", ctx)
				return
			}
			p.fields(v, ctx+"json_path: ", nil, func(path string, pk, pv *yaml.Node) {
				steps, err := parsePath(path)
				if err != nil {
					p.errorf(pk.Line, "%sjson_path %q: %v", ctx, path, err)
					return
				}
				raw, ok := p.toJSON(pv, ctx+"json_path."+path)
				if !ok {
					return
				}
				a.JSONPath = append(a.JSONPath, PathCheck{Path: path, Expected: raw, steps: steps})
			})
		}
	})
	if len(a.Contains)+len(a.NotContains)+len(a.JSONPath) == 0 && a.re == nil && a.Equals == nil {
		p.errorf(n.Line, "%sgive at least one of %s", ctx, strings.Join(answerKeys, ", "))
		return nil
	}
	return a
}

// parsePath reads the subset of JSONPath the check needs: $ followed by
// .key, ["key"] and [index] steps.
func parsePath(path string) ([]pathStep, error) {
	rest, ok := strings.CutPrefix(path, "$")
	if !ok {
		return nil, fmt.Errorf("a path starts with $")
	}
	var steps []pathStep
	for rest != "" {
		switch rest[0] {
		case '.':
			rest = rest[1:]
			end := strings.IndexAny(rest, ".[")
			if end < 0 {
				end = len(rest)
			}
			if end == 0 {
				return nil, fmt.Errorf("empty key after '.'")
			}
			steps = append(steps, pathStep{key: rest[:end], index: -1})
			rest = rest[end:]
		case '[':
			end := strings.IndexByte(rest, ']')
			if end < 0 {
				return nil, fmt.Errorf("unclosed [")
			}
			inner := rest[1:end]
			rest = rest[end+1:]
			if k, err := strconv.Unquote(inner); err == nil && len(inner) > 1 && (inner[0] == '"' || inner[0] == '\'') {
				steps = append(steps, pathStep{key: k, index: -1})
				continue
			}
			i, err := strconv.Atoi(inner)
			if err != nil || i < 0 {
				return nil, fmt.Errorf("[%s] is neither an index nor a quoted key", inner)
			}
			steps = append(steps, pathStep{index: i})
		default:
			return nil, fmt.Errorf("unexpected %q; use .key, [\"key\"] or [index]", rest[:1])
		}
	}
	return steps, nil
}

// Check returns why the answer fails the check, one reason per failed
// assertion; none when it holds.
func (a *AnswerCheck) Check(answer string) []string {
	var why []string
	lower := strings.ToLower(answer)
	for _, c := range a.Contains {
		if !strings.Contains(lower, strings.ToLower(c)) {
			why = append(why, fmt.Sprintf("answer does not contain %q", c))
		}
	}
	for _, c := range a.NotContains {
		if strings.Contains(lower, strings.ToLower(c)) {
			why = append(why, fmt.Sprintf("answer contains %q, which it must not", c))
		}
	}
	if a.re != nil && !a.re.MatchString(answer) {
		why = append(why, fmt.Sprintf("answer does not match /%s/", a.Regex))
	}
	if a.Equals != nil && strings.TrimSpace(answer) != strings.TrimSpace(*a.Equals) {
		why = append(why, fmt.Sprintf("answer is %q, want %q", clip(strings.TrimSpace(answer)), *a.Equals))
	}
	if len(a.JSONPath) > 0 {
		doc, err := answerJSON(answer)
		if err != nil {
			return append(why, "answer is not JSON, so json_path cannot be checked: "+err.Error())
		}
		for _, pc := range a.JSONPath {
			got, ok := pc.lookup(doc)
			switch {
			case !ok:
				why = append(why, fmt.Sprintf("answer has nothing at %s", pc.Path))
			case !pathValueEqual(got, pc.Expected):
				gb, _ := json.Marshal(got)
				why = append(why, fmt.Sprintf("answer %s is %s, want %s", pc.Path, clip(string(gb)), pc.Expected))
			}
		}
	}
	return why
}

// answerJSON reads the answer as JSON: the whole text, or the contents of
// its one ``` code fence (models like to fence JSON).
func answerJSON(answer string) (any, error) {
	body := strings.TrimSpace(answer)
	if i := strings.Index(body, "```"); i >= 0 {
		rest := body[i+3:]
		if nl := strings.IndexByte(rest, '\n'); nl >= 0 {
			rest = rest[nl+1:]
		}
		if j := strings.Index(rest, "```"); j >= 0 {
			body = strings.TrimSpace(rest[:j])
		}
	}
	dec := json.NewDecoder(strings.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if rest := strings.TrimSpace(body[dec.InputOffset():]); rest != "" {
		return nil, fmt.Errorf("text after the JSON value: %q", clip(rest))
	}
	return v, nil
}

func (pc PathCheck) lookup(v any) (any, bool) {
	for _, s := range pc.steps {
		switch cur := v.(type) {
		case map[string]any:
			if s.index >= 0 {
				return nil, false
			}
			x, ok := cur[s.key]
			if !ok {
				return nil, false
			}
			v = x
		case []any:
			if s.index < 0 || s.index >= len(cur) {
				return nil, false
			}
			v = cur[s.index]
		default:
			return nil, false
		}
	}
	return v, true
}

// pathValueEqual compares a decoded value with expected JSON, numbers by
// value (the matcher's own equality).
func pathValueEqual(got any, want json.RawMessage) bool {
	w, ok := canon.Decode(want)
	return ok && canon.Equal(got, w)
}
