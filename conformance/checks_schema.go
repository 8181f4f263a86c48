package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/mcp-eval/mcp-eval/engine/check"
	"github.com/mcp-eval/mcp-eval/internal/schema"
	"github.com/mcp-eval/mcp-eval/mcp"
	"github.com/mcp-eval/mcp-eval/report"
)

// toolCheck runs judge on this run's tools/list, shared by every check of
// the run (listing.go). A judge depends only on the list, so its outcome
// is computed once per distinct listing: the five runs of a stable server
// cost one judgement each.
func toolCheck(id, title string, level report.Level, rev, ref string, judge func(e *Env, tools []mcp.Tool) Outcome) *Check {
	return &Check{ID: id, Title: title, Level: level, Revision: rev, SpecRef: ref, Skip: needsTools,
		Run: func(ctx context.Context, e *Env) Outcome {
			l := e.listingOf(ctx, toolsList)
			if l.fail != nil {
				return l.unavailable("tools/list")
			}
			o := l.tools.once(id, func() Outcome { return judge(e, l.tools.tools) })
			if l.bounded != "" && o.Info == "" {
				o.Info = l.bounded
			}
			return o
		}}
}

// schemaCheck is a toolCheck judging what compiling the list's schemas
// found (compiled once per distinct listing for all three).
func schemaCheck(id, title, ref string, judge func(schemaProblems) Outcome) *Check {
	c := toolCheck(id, title, report.LevelMust, revBoth, ref, nil)
	c.Run = func(ctx context.Context, e *Env) Outcome {
		l := e.listingOf(ctx, toolsList)
		if l.fail != nil {
			return l.unavailable("tools/list")
		}
		o := judge(l.tools.schemaProblems())
		if l.bounded != "" && o.Info == "" {
			o.Info = l.bounded
		}
		return o
	}
	return c
}

// problems collects per-tool findings into one outcome.
type problems []string

func (p problems) outcome(summary string) Outcome {
	if len(p) == 0 {
		return check.Pass()
	}
	p = append(problems(nil), p...) // findings may be shared between runs
	sort.Strings(p)
	ev := p
	if len(ev) > 20 {
		ev = append(ev[:20:20], fmt.Sprintf("… and %d more", len(p)-20))
	}
	return check.Fail(fmt.Sprintf("%s: %s", summary, strings.Join(firstN(p, 3), "; ")), map[string]any{"problems": ev})
}

func firstN(s []string, n int) []string {
	if len(s) <= n {
		return s
	}
	return append(s[:n:n], fmt.Sprintf("+%d more", len(s)-n))
}

// compileAll compiles every schema of the tools, splitting reference
// problems from others. A schema given by several tools is compiled once,
// and a long list is compiled by as many workers as there are CPUs (it is
// most of a big server's judging); the findings keep the list's order.
func compileAll(tools []mcp.Tool, output bool) (invalid, refs problems) {
	type finding struct {
		msg string
		ref bool
	}
	found := make([]*finding, len(tools))
	var mu sync.Mutex
	done := map[string]error{} // by schema text
	compile := func(i int) {
		t := tools[i]
		raw := t.InputSchema
		what := "inputSchema"
		if output {
			raw, what = t.OutputSchema, "outputSchema"
			if len(bytes.TrimSpace(raw)) == 0 {
				return
			}
		}
		if len(bytes.TrimSpace(raw)) == 0 {
			found[i] = &finding{msg: fmt.Sprintf("%s: no %s", t.Name, what)}
			return
		}
		mu.Lock()
		err, seen := done[string(raw)]
		mu.Unlock()
		if !seen {
			err = schema.Check(raw)
			mu.Lock()
			done[string(raw)] = err
			mu.Unlock()
		}
		if err != nil {
			var se *schema.Error
			ref := errors.As(err, &se) && (se.Kind == schema.KindUnresolvedRef || se.Kind == schema.KindExternalRef)
			found[i] = &finding{msg: fmt.Sprintf("%s %s: %v", t.Name, what, err), ref: ref}
		}
	}
	workers := min(runtime.GOMAXPROCS(0), 4, max(1, len(tools)/compileChunk))
	var wg sync.WaitGroup
	next := make(chan int)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				compile(i)
			}
		}()
	}
	for i := range tools {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, f := range found {
		switch {
		case f == nil:
		case f.ref:
			refs = append(refs, f.msg)
		default:
			invalid = append(invalid, f.msg)
		}
	}
	return invalid, refs
}

// compileChunk is how many schemas make one more compiling worker worth
// its start.
const compileChunk = 50

func schemaChecks() []*Check {
	ref := spec("basic/index") + "#json-schema-usage"
	tools := spec("server/tools") + "#tool"
	return []*Check{
		withReqs(schemaCheck("schema/input-schema-valid", "every inputSchema compiles as JSON Schema 2020-12", ref,
			func(p schemaProblems) Outcome { return p.invalidIn.outcome("invalid inputSchema") }), "base/json-schema-2020-12", "base/json-schema-valid", "features/input-schema-object"),
		{ID: "schema/structured-content", Reqs: []string{"features/output-schema-conform"}, Level: report.LevelMust, Revision: revBoth, SpecRef: spec("server/tools") + "#output-schema",
			Title: "a safe tool with an outputSchema returns structuredContent that validates against it",
			Skip: func(e *Env) string {
				if len(outputTools(e)) == 0 {
					return "no safe tool (readOnlyHint or --safe-tools) has an outputSchema"
				}
				return ""
			},
			Run: func(ctx context.Context, e *Env) Outcome { return e.judgeStructuredContent(ctx) }},
		withReqs(toolCheck("schema/input-schema-object", `every inputSchema has root type "object"`, report.LevelMust, revBoth, tools,
			func(_ *Env, ts []mcp.Tool) Outcome {
				var p problems
				for _, t := range ts {
					typ, ok := rawField(t.InputSchema, "type")
					if !ok {
						p = append(p, t.Name+": inputSchema is not an object")
						continue
					}
					if !jsonIs(typ, "object") {
						got := string(typ)
						if got == "" {
							got = "absent"
						}
						p = append(p, fmt.Sprintf("%s: root type is %s", t.Name, got))
					}
				}
				return p.outcome(`inputSchema root must be {"type":"object"}`)
			}), "base/json-schema-valid", "features/input-schema-object"),
		withReqs(schemaCheck("schema/output-schema-valid", "every outputSchema compiles as JSON Schema 2020-12", ref,
			func(p schemaProblems) Outcome { return p.invalidOut.outcome("invalid outputSchema") }), "base/json-schema-2020-12", "base/json-schema-valid"),
		withReqs(schemaCheck("schema/refs-resolve", "every $ref resolves inside its schema, with no network or file loading", ref,
			func(p schemaProblems) Outcome {
				return append(append(problems(nil), p.refsIn...), p.refsOut...).outcome("unresolvable $ref")
			}), "base/ref-unresolved"),
	}
}

// outputTools are the safe tools with an outputSchema, at most
// maxProbedTools of them.
func outputTools(e *Env) []mcp.Tool {
	var out []mcp.Tool
	for _, t := range e.safeTools() {
		if len(bytes.TrimSpace(t.OutputSchema)) > 0 && len(out) < maxProbedTools {
			out = append(out, t)
		}
	}
	return out
}

// judgeStructuredContent calls each safe tool that has an outputSchema and
// checks that a successful result carries structuredContent conforming to
// it (server/tools: "servers MUST provide structured results that conform
// to this schema"). Results that are errors (isError), input_required, or
// JSON-RPC errors (the synthesised arguments may not suit the tool) are not
// judged; if no call could be judged the check is skipped with why.
func (e *Env) judgeStructuredContent(ctx context.Context) Outcome {
	var p problems
	var notJudged []string
	judged := 0
	var ev any
	for _, t := range outputTools(e) {
		call := e.client.NewCall("tools/call", map[string]any{"name": t.Name, "arguments": schema.SampleArgs(t.InputSchema)})
		x, _, err := e.do(ctx, e.client, call)
		if err != nil {
			return check.Errored(fmt.Errorf("tools/call %s: %w", t.Name, err), check.Protocol.Of(x))
		}
		if x.Response == nil {
			return check.Failf(check.Protocol.Of(x), "tools/call %s: no JSON-RPC answer (%s)", t.Name, cameBack(x))
		}
		if rerr := x.Response.Error; rerr != nil {
			notJudged = append(notJudged, fmt.Sprintf("%s answered error %d", t.Name, rerr.Code))
			continue
		}
		var res struct {
			ResultType        string          `json:"resultType"`
			IsError           bool            `json:"isError"`
			StructuredContent json.RawMessage `json:"structuredContent"`
		}
		if json.Unmarshal(x.Response.Result, &res) != nil {
			p = append(p, t.Name+": the result is not an object")
			ev = check.Protocol.Of(x)
			continue
		}
		switch {
		case res.ResultType == "input_required":
			notJudged = append(notJudged, t.Name+" answered input_required")
			continue
		case res.IsError:
			notJudged = append(notJudged, t.Name+" answered isError")
			continue
		}
		s, cerr := e.compile(t.OutputSchema)
		if cerr != nil {
			notJudged = append(notJudged, t.Name+"'s outputSchema does not compile (see schema/output-schema-valid)")
			continue
		}
		judged++
		if len(res.StructuredContent) == 0 {
			p = append(p, t.Name+": has an outputSchema but returned no structuredContent")
			ev = check.Protocol.Of(x)
			continue
		}
		inst, derr := schema.DecodeJSON(res.StructuredContent)
		if derr != nil {
			p = append(p, fmt.Sprintf("%s: structuredContent cannot be read: %v", t.Name, derr))
			ev = check.Protocol.Of(x)
			continue
		}
		if verr := s.Validate(inst); verr != nil {
			p = append(p, fmt.Sprintf("%s: structuredContent breaks its outputSchema: %v", t.Name, verr))
			ev = check.Protocol.Of(x)
		}
	}
	if len(p) > 0 {
		o := p.outcome("structured results that do not conform to the tool's outputSchema")
		o.Evidence = check.With(evidenceMap(ev), "problems", []string(p))
		return o
	}
	if judged == 0 {
		return check.Skip("no call could be judged: " + strings.Join(firstN(notJudged, 3), "; "))
	}
	return check.PassInfo(fmt.Sprintf("%d tools' structuredContent validated", judged))
}

func evidenceMap(ev any) map[string]any {
	m, _ := ev.(map[string]any)
	return m
}
