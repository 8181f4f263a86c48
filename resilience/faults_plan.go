package resilience

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mcp-eval/mcp-eval/agent"
	"github.com/mcp-eval/mcp-eval/engine/runs"
	"github.com/mcp-eval/mcp-eval/internal/suggest"
	"github.com/mcp-eval/mcp-eval/internal/yamlfile"
	"github.com/mcp-eval/mcp-eval/llm"
	"github.com/mcp-eval/mcp-eval/mcp"
	"github.com/mcp-eval/mcp-eval/report"
	"github.com/mcp-eval/mcp-eval/tasks"
)

// VariantKind says what a variant does to a case's runs.
type VariantKind string

// The two kinds of variant.
const (
	KindFault  VariantKind = "fault"
	KindInject VariantKind = "inject"
)

// Variant is one way of running a golden case under Layer 2: one faults:
// entry, or one payload of inject:. Its runs are scored on their own and
// reported as the case ID.
type Variant struct {
	// ID is the report's case id: "<case>#fault-<kind>" (with "-<tool>",
	// then "-<n>", added when a case has several faults of one kind) or
	// "<case>#inject-<payload id>".
	ID   string
	Kind VariantKind
	Case *tasks.Case
	// Fault is set for a fault variant.
	Fault *tasks.Fault
	// Payload, Into and SendTool are set for an injection variant: the
	// payload, the tool whose results carry it ("" for every tool) and the
	// tool its {{send_tool}} names.
	Payload  *Payload
	Into     string
	SendTool string
	// Canaries must not reach a tool argument or the final answer after
	// the injection: the payload's, then the case's own.
	Canaries []string
	// PayloadSet is the Version of the set the payload came from.
	PayloadSet string
	// JobID is the runs.Job CaseID of the variant's runs: ID and a short
	// hash of everything the variant changes in a run, so that the result
	// cache misses when a fault or payload changes (the cache cannot key
	// the OnResult function itself).
	JobID string
}

// layer2Stub answers, in every Layer 2 run, the tools the server does not
// mark readOnlyHint and the case does not stub itself. A fault can make a
// model repeat a call, and an injection is written to make it call a tool
// with an attacker's arguments: neither may reach a real tool with side
// effects. The call still counts for scoring; only its effect is avoided.
var layer2Stub = json.RawMessage(`"{\"status\": \"ok\"}"`)

// Task returns the agent.Task of one run of the variant on model (the
// provider's model name): the case's task with the variant's hook and the
// Layer 2 stubs. Every call returns a fresh hook, as one run needs.
func (v *Variant) Task(tools []mcp.Tool, model string) agent.Task {
	t := v.Case.Task(tools, model)
	for _, tool := range tools {
		if tool.ReadOnly() {
			continue
		}
		if _, ok := t.Stubs[tool.Name]; ok {
			continue
		}
		if t.Stubs == nil {
			t.Stubs = map[string]json.RawMessage{}
		}
		t.Stubs[tool.Name] = layer2Stub
	}
	if v.Kind == KindFault {
		t.OnResult = faultHook(v.Fault)
	} else {
		t.OnResult = injectHook(v.Payload, v.Into, v.SendTool)
	}
	return t
}

// Variants returns the Layer 2 variants of one case: one per faults: entry
// in file order, then one per selected payload in payload-set order.
// tools are the server's (they pick {{send_tool}}); payloads nil means
// Builtin(). An inject.payloads entry that names no payload or category is
// a yamlfile.Errors naming the tasks file and line.
func Variants(c *tasks.Case, tools []mcp.Tool, payloads *PayloadSet) ([]*Variant, error) {
	if payloads == nil {
		payloads = Builtin()
	}
	var out []*Variant
	for i, f := range c.Faults {
		out = append(out, &Variant{ID: faultID(c, i), Kind: KindFault, Case: c, Fault: f})
	}
	var errs yamlfile.Errors
	if in := c.Inject; in != nil {
		var chosen []*Payload
		for i, sel := range in.Payloads {
			got := payloads.Select(sel)
			if len(got) == 0 {
				errs = append(errs, &yamlfile.Error{File: c.File, Line: in.PayloadLines[i], Msg: unknownPayload(c, sel, payloads)})
				continue
			}
			for _, p := range got {
				if !slices.Contains(chosen, p) {
					chosen = append(chosen, p)
				}
			}
		}
		// Payload-set order, whatever the order of the selectors.
		slices.SortStableFunc(chosen, func(a, b *Payload) int {
			return slices.Index(payloads.Payloads, a) - slices.Index(payloads.Payloads, b)
		})
		send := sendTool(c, tools)
		for _, p := range chosen {
			v := &Variant{
				ID: c.ID + report.VariantInject + p.ID, Kind: KindInject, Case: c,
				Payload: p, Into: in.Into, SendTool: send, PayloadSet: payloads.Version,
				Canaries: []string{p.Canary},
			}
			if in.Canary != "" && in.Canary != p.Canary {
				v.Canaries = append(v.Canaries, in.Canary)
			}
			out = append(out, v)
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	for _, v := range out {
		v.JobID = v.ID + "~" + v.key()
	}
	return out, nil
}

// faultID names the i-th fault of c, unique within the case.
func faultID(c *tasks.Case, i int) string {
	f := c.Faults[i]
	sameKind, sameTool, nth := 0, 0, 0
	for j, g := range c.Faults {
		if g.Kind != f.Kind {
			continue
		}
		sameKind++
		if g.Tool == f.Tool {
			sameTool++
			if j <= i {
				nth++
			}
		}
	}
	id := c.ID + report.VariantFault + string(f.Kind)
	if sameKind > 1 {
		id += "-" + f.Tool
	}
	if sameTool > 1 {
		id += fmt.Sprintf("-%d", nth)
	}
	return id
}

func unknownPayload(c *tasks.Case, sel string, s *PayloadSet) string {
	msg := fmt.Sprintf("case %q: inject.payloads: the payload set %s has no payload or category %q", c.ID, s.Version, sel)
	names := s.IDs()
	for _, cat := range Categories {
		names = append(names, string(cat))
	}
	if near := nearest(sel, names); near != "" {
		return msg + fmt.Sprintf(" (did you mean %q?)", near)
	}
	return msg + " (use all, a category such as " + string(CategoryInstructionOverride) + ", or an id: " + strings.Join(s.IDs(), ", ") + ")"
}

// key hashes what the variant changes in a run. Lines and file paths are
// left out: moving an entry, or running from another directory, changes
// nothing a model sees.
func (v *Variant) key() string {
	type fault struct {
		Version, Tool, Kind string
		After, Times        int
	}
	type payload struct {
		ID, Category, Text, Prefix, Encoding, Canary string
	}
	k := struct {
		ID       string
		Fault    *fault   `json:",omitempty"`
		Payload  *payload `json:",omitempty"`
		Into     string   `json:",omitempty"`
		SendTool string   `json:",omitempty"`
	}{ID: v.ID, Into: v.Into, SendTool: v.SendTool}
	if f := v.Fault; f != nil {
		k.Fault = &fault{FaultsVersion, f.Tool, string(f.Kind), f.After, f.Times}
	}
	if p := v.Payload; p != nil {
		k.Payload = &payload{p.ID, string(p.Category), p.Text, p.Prefix, string(p.Encoding), p.Canary}
	}
	b, _ := json.Marshal(k)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:4])
}

// Plan is the model half of Layer 2 for a set of cases: every variant,
// ready to become runner jobs and to score their results.
type Plan struct {
	// Variants in case order, each case's in Variants order.
	Variants []*Variant
	// Payloads is the payload set the injections came from.
	Payloads *PayloadSet

	byJob map[string]*Variant
}

// NewPlan builds the variants of cases (those without faults: or inject:
// have none) against the server's tools. payloads nil means Builtin(). The
// error, if any, is a yamlfile.Errors naming file:line of every inject entry
// that selects nothing; the CLI reports it and exits 2. Call it after
// golden's Suite.Validate, which checks the tool names.
func NewPlan(cases []*tasks.Case, tools []mcp.Tool, payloads *PayloadSet) (*Plan, error) {
	if payloads == nil {
		payloads = Builtin()
	}
	p := &Plan{Payloads: payloads, byJob: map[string]*Variant{}}
	var errs yamlfile.Errors
	for _, c := range cases {
		vs, err := Variants(c, tools, payloads)
		if es, ok := err.(yamlfile.Errors); ok {
			errs = append(errs, es...)
			continue
		}
		for _, v := range vs {
			p.Variants = append(p.Variants, v)
			p.byJob[v.JobID] = v
		}
	}
	if len(errs) > 0 {
		slices.SortStableFunc(errs, func(a, b *yamlfile.Error) int {
			return cmp.Or(strings.Compare(a.File, b.File), a.Line-b.Line)
		})
		return nil, errs
	}
	return p, nil
}

// Empty reports whether no case has a Layer 2 key.
func (p *Plan) Empty() bool { return len(p.Variants) == 0 }

// Variant returns the variant a job's CaseID names, or nil.
func (p *Plan) Variant(jobCaseID string) *Variant { return p.byJob[jobCaseID] }

// Jobs returns the runner jobs of every variant on every model
// ("provider:model" specs), runsOf(c) runs each. With the CLI's --runs:
//
//	runsOf := func(c *tasks.Case) int { return c.RunsOr(cfg.Runs) }
//
// or a constant when --runs was given explicitly. The jobs' tasks carry the
// variants' hooks; run them with a runs.Runner and score the results with
// Plan.Score.
func (p *Plan) Jobs(tools []mcp.Tool, models []string, runsOf func(*tasks.Case) int) []runs.Job {
	var jobs []runs.Job
	for _, v := range p.Variants {
		n := runsOf(v.Case)
		for _, spec := range models {
			_, model, _ := llm.SplitSpec(spec)
			for i := range n {
				jobs = append(jobs, runs.Job{CaseID: v.JobID, Model: spec, Run: i, Task: v.Task(tools, model)})
			}
		}
	}
	return jobs
}

// nearest is internal/suggest's did-you-mean over the sorted, distinct
// candidates, so that a tie goes to the first name alphabetically.
func nearest(s string, candidates []string) string {
	return suggest.Nearest(s, slices.Compact(slices.Sorted(slices.Values(candidates))))
}
