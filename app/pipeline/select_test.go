package pipeline_test

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcp-eval/mcp-eval/app/apptest"
	"github.com/mcp-eval/mcp-eval/internal/mcptest"
	"github.com/mcp-eval/mcp-eval/internal/spectest"
	"github.com/mcp-eval/mcp-eval/llm/llmtest"
	"github.com/mcp-eval/mcp-eval/llm/providers"
	"github.com/mcp-eval/mcp-eval/llm/providertest"
	"github.com/mcp-eval/mcp-eval/report"
)

// selectRig is a server of six generated tools, a golden set of twelve
// cases (two per tool) and OpenAI's strict emulation with a scripted model
// that calls the tool a prompt names, except where plant says otherwise.
type selectRig struct {
	t     *testing.T
	dir   string
	tools []string
	tasks string
	calls atomic.Int64
	// plant, when it returns a tool, is what the model calls instead.
	plant atomic.Pointer[func(prompt string, tools []llmtest.Tool) string]
	model *httptest.Server
}

func newSelectRig(t *testing.T) *selectRig {
	g := &selectRig{t: t, dir: t.TempDir()}
	for _, raw := range mcptest.BigToolsJSON(6) {
		var tool struct{ Name string }
		if err := json.Unmarshal(raw, &tool); err != nil {
			t.Fatal(err)
		}
		g.tools = append(g.tools, tool.Name)
	}
	var b strings.Builder
	b.WriteString("version: 1\ncases:\n")
	for i, name := range g.tools {
		for _, v := range []string{"a", "b"} {
			fmt.Fprintf(&b, "  - id: t%d-%s\n    prompt: \"Request %d%s: run %s for me.\"\n    expect_tool: %s\n    kind: hard\n", i, v, i, v, name, name)
		}
	}
	g.tasks = filepath.Join(g.dir, "tasks.yaml")
	if err := os.WriteFile(g.tasks, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	def, _ := providers.Lookup("openai")
	g.model = httptest.NewServer(providertest.Emulate(t, def, llmtest.Options{Models: []string{"scripted"}, Reply: func(r llmtest.Request) llmtest.Reply {
		g.calls.Add(1)
		if r.ToolResults() > 0 {
			return llmtest.Reply{Text: "Done."}
		}
		p := r.LastUser()
		if f := g.plant.Load(); f != nil {
			if name := (*f)(p, r.Tools); name != "" {
				return llmtest.Reply{Calls: []llmtest.ReplyCall{{Name: name, Args: `{"query":"x"}`}}}
			}
		}
		for _, name := range g.tools {
			if strings.Contains(p, name) {
				return llmtest.Reply{Calls: []llmtest.ReplyCall{{Name: name, Args: `{"query":"x"}`}}}
			}
		}
		return llmtest.Reply{Text: "No tool fits."}
	}}))
	t.Cleanup(g.model.Close)
	return g
}

// run runs mcp-eval's behaviour layer, 2 runs a case, on a fresh fixture
// server with opts, and returns the exit code, stdout, the report and
// the model calls it made.
func (g *selectRig) run(name string, opts mcptest.Options, args ...string) (int, string, *report.Report, int64) {
	g.t.Helper()
	srv := mcptest.Serve(g.t, opts)
	out := filepath.Join(g.dir, name)
	all := append([]string{"run", "--server-url", srv.URL, "--layers", "behavior", "--models", "openai:scripted", "--judge-model", "none",
		"--golden", g.tasks, "--runs", "2", "--stub-tools", strings.Join(g.tools, ","),
		"--out", out, "--cache-dir", filepath.Join(g.dir, "cache-"+name)}, args...)
	before := g.calls.Load()
	code, stdout, stderr := runCommand(g.t, apptest.Env(map[string]string{"OPENAI_BASE_URL": g.model.URL + "/v1", "GITHUB_SHA": "0123abcd", "GITHUB_RUN_ID": "7" + name}), all...)
	if code > 1 {
		g.t.Fatalf("%s: exit %d\n%s\n%s", name, code, stdout, stderr)
	}
	r := apptest.LoadReport(g.t, filepath.Join(out, "report.json"))
	return code, stdout, &r, g.calls.Load() - before
}

// TestSelectAffectedRewordedTool is the measure: a release
// rewords one tool's description, and that rewording makes the model pick
// another tool for one of the tool's two cases. --select affected
// --sample 0 runs those two cases only (no other tool is near it), at most
// 25 % of the full run's model calls, and the gate still catches the
// regression; the other ten cases carry the baseline's verdict, marked,
// and the scores are pooled over all twelve like the full run's.
func TestSelectAffectedRewordedTool(t *testing.T) {
	g := newSelectRig(t)
	code, _, base, baseCalls := g.run("base", mcptest.Options{ExtraTools: 6})
	if code != 0 || len(base.Cases) != 12 || baseCalls == 0 {
		t.Fatalf("baseline: exit %d, %d cases, %d calls", code, len(base.Cases), baseCalls)
	}
	for _, c := range base.Cases {
		if c.DefinitionSHA256 == "" {
			t.Fatalf("baseline case %s records no definition hash", c.ID)
		}
	}
	if base.Surface.Tools[0].Def() == nil || base.RunID != "7base" {
		t.Errorf("baseline surface or run id not recorded: %+v, %q", base.Surface.Tools[0], base.RunID)
	}
	baseline := filepath.Join(g.dir, "base", "report.json")

	reworded := g.tools[3]
	const newText = "Look up records by free text; use it for any record question at all."
	pr := mcptest.Options{ExtraTools: 6, Describe: map[string]string{reworded: newText}}
	wrong := g.tools[0]
	plant := func(prompt string, tools []llmtest.Tool) string {
		for _, tl := range tools {
			if tl.Name == reworded && tl.Description == newText && strings.Contains(prompt, "Request 3b") {
				return wrong
			}
		}
		return ""
	}
	g.plant.Store(&plant)

	code, _, all, allCalls := g.run("all", pr, "--baseline", baseline)
	if code != 1 || all.Gate == nil || len(all.Gate.Regressions) != 1 {
		t.Fatalf("--select all: exit %d, gate %+v", code, all.Gate)
	}
	code, stdout, aff, affCalls := g.run("affected", pr, "--baseline", baseline, "--select", "affected", "--sample", "0")
	if code != 1 || aff.Gate == nil || len(aff.Gate.Regressions) != 1 || aff.Gate.Regressions[0].ID != "t3-b" {
		t.Fatalf("--select affected: exit %d, gate %+v\n%s", code, aff.Gate, stdout)
	}
	t.Logf("model calls: --select all %d, --select affected --sample 0 %d (%.0f%%)", allCalls, affCalls, 100*float64(affCalls)/float64(allCalls))
	if 4*affCalls > allCalls {
		t.Errorf("--select affected made %d model calls, more than 25%% of the full run's %d", affCalls, allCalls)
	}
	s := aff.Selection
	if s == nil || s.Mode != report.SelectAffected || s.Ran != 2 || s.Carried != 10 || len(s.Cases) != 2 ||
		s.Cases[0].ID != "t3-a" || s.Cases[0].Why != "uses changed tool "+reworded {
		t.Fatalf("selection %+v", s)
	}
	carried := 0
	for _, c := range aff.Cases {
		if c.Carried != nil {
			carried++
			if c.Carried.RunID != "7base" || c.Carried.Commit != "0123abcd" {
				t.Errorf("case %s carried from %+v", c.ID, c.Carried)
			}
		}
	}
	if len(aff.Cases) != 12 || carried != 10 {
		t.Errorf("%d cases, %d carried", len(aff.Cases), carried)
	}
	// Pooled over the twelve cases, the scores are the full run's.
	for _, k := range []string{"behavior.passRate", "behavior.selectionAccuracy"} {
		if aff.Scores[k] != all.Scores[k] {
			t.Errorf("%s: affected %v, all %v", k, aff.Scores[k], all.Scores[k])
		}
	}
	// Both reports, with their definitions, carried cases, selection and
	// diff, are valid report.json.
	sch := spectest.CompileDoc(t, "../../docs/report.schema.json", "")
	for _, name := range []string{"base", "affected"} {
		f, err := os.Open(filepath.Join(g.dir, name, "report.json"))
		if err != nil {
			t.Fatal(err)
		}
		v, err := jsonschema.UnmarshalJSON(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if err := sch.Validate(v); err != nil {
			t.Errorf("%s report.json does not validate: %v", name, err)
		}
	}
	d := aff.SurfaceDiff
	if d == nil || len(d.Changes) != 1 || d.Changes[0].Tool != reworded || d.Changes[0].Kind != report.ChangeDescription || d.Changes[0].After != newText {
		t.Errorf("surface diff %+v", d)
	}
	apptest.MustContain(t, "stdout", stdout, "tool surface", "1 tool changed since the baseline", "description reworded",
		"--select affected: ran 2 of 12 (case, model) pairs; 10 carried")
	md, err := os.ReadFile(filepath.Join(g.dir, "affected", "summary.md"))
	if err != nil {
		t.Fatal(err)
	}
	apptest.MustContain(t, "summary.md", string(md), "### Tool surface changes", "### Selection", "carried")

	// The same commit draws the same sample; the sample is stratified,
	// one case per tool before a second.
	_, _, s1, _ := g.run("sample1", pr, "--baseline", baseline, "--select", "affected", "--sample", "3")
	_, _, s2, _ := g.run("sample2", pr, "--baseline", baseline, "--select", "affected", "--sample", "3")
	if s1.Selection.Ran != 5 || fmt.Sprint(s1.Selection.Cases) != fmt.Sprint(s2.Selection.Cases) {
		t.Errorf("samples: %+v and %+v", s1.Selection.Cases, s2.Selection.Cases)
	}
	strata := map[string]bool{}
	for _, c := range s1.Selection.Cases {
		if strings.HasPrefix(c.Why, "sample") {
			strata[c.ID[:2]] = true
		}
	}
	if len(strata) != 3 {
		t.Errorf("the sample of 3 is not spread over 3 tools: %+v", s1.Selection.Cases)
	}
}

// TestRerunFailed: --rerun-failed runs only the cases that failed in the
// given report and merges: once the model is fixed, the rerun passes and
// the rest carry the report's verdicts.
func TestRerunFailed(t *testing.T) {
	g := newSelectRig(t)
	broken := func(prompt string, _ []llmtest.Tool) string {
		if strings.Contains(prompt, "Request 1a") || strings.Contains(prompt, "Request 4b") {
			return "no_such_tool"
		}
		return ""
	}
	g.plant.Store(&broken)
	code, _, first, firstCalls := g.run("first", mcptest.Options{ExtraTools: 6})
	if code != 1 {
		t.Fatalf("first run: exit %d", code)
	}
	g.plant.Store(nil)
	code, stdout, again, calls := g.run("again", mcptest.Options{ExtraTools: 6}, "--rerun-failed", filepath.Join(g.dir, "first", "report.json"))
	if code != 0 {
		t.Fatalf("rerun: exit %d\n%s", code, stdout)
	}
	s := again.Selection
	if s == nil || s.Mode != report.SelectRerunFailed || s.Ran != 2 || s.Carried != 10 || s.Cases[0].ID != "t1-a" || s.Cases[1].ID != "t4-b" {
		t.Fatalf("selection %+v", s)
	}
	if calls*6 != firstCalls {
		t.Errorf("rerun made %d model calls, want a sixth of the first run's %d", calls, firstCalls)
	}
	for _, c := range again.Cases {
		if c.Status != report.StatusPass || (c.Carried == nil) != (c.ID == "t1-a" || c.ID == "t4-b") {
			t.Errorf("case %s: %s, carried %+v", c.ID, c.Status, c.Carried)
		}
	}
	if again.Scores["behavior.passRate"] != 1 || first.Scores["behavior.passRate"] == 1 {
		t.Errorf("pass rates: first %v, rerun %v", first.Scores["behavior.passRate"], again.Scores["behavior.passRate"])
	}
}

// TestSelectNeedsBaseline: --select affected without a baseline, or with
// --rerun-failed, is a usage error before any network call.
func TestSelectNeedsBaseline(t *testing.T) {
	g := newSelectRig(t)
	env := apptest.Env(map[string]string{"OPENAI_BASE_URL": g.model.URL + "/v1"})
	code, _, stderr := runCommand(t, env, "run", "--server-url", "http://127.0.0.1:1", "--layers", "behavior", "--models", "openai:scripted",
		"--golden", g.tasks, "--select", "affected", "--out", g.dir)
	if code != 2 || !strings.Contains(stderr, "--select affected needs --baseline") {
		t.Errorf("no baseline: exit %d, %s", code, stderr)
	}
	b, _ := json.Marshal(report.Report{SchemaVersion: report.SchemaVersion, Server: report.Server{Transport: "http", Era: "modern"}})
	baseline := filepath.Join(g.dir, "baseline.json")
	if err := os.WriteFile(baseline, b, 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = runCommand(t, env, "run", "--server-url", "http://127.0.0.1:1", "--layers", "behavior", "--models", "openai:scripted",
		"--golden", g.tasks, "--select", "affected", "--baseline", baseline, "--rerun-failed", baseline, "--out", g.dir)
	if code != 2 || !strings.Contains(stderr, "cannot be combined") {
		t.Errorf("both: exit %d, %s", code, stderr)
	}
}

// TestSelectAffectedNearTool: the fixture's get_town_forecast is a
// near-duplicate of get_forecast (the lint's pair); rewording
// get_forecast (its punctuation) runs the cases of both tools and carries
// the lookup_region case.
func TestSelectAffectedNearTool(t *testing.T) {
	g := newSelectRig(t)
	g.tools = []string{"get_forecast", "get_town_forecast", "lookup_region"}
	var b strings.Builder
	b.WriteString("version: 1\ncases:\n")
	for _, name := range g.tools {
		fmt.Fprintf(&b, "  - id: %s-case\n    prompt: \"Please run %s now.\"\n    expect_tool: %s\n", name, name, name)
	}
	if err := os.WriteFile(g.tasks, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	opts := mcptest.Options{Defects: map[string]bool{"lint/near-duplicate-descriptions": true}}
	if code, stdout, _, _ := g.run("base", opts); code != 0 {
		t.Fatalf("baseline: exit %d\n%s", code, stdout)
	}
	opts.Describe = map[string]string{"get_forecast": "Get tomorrow's weather forecast for a city — temperature in Celsius and a one-word sky condition."}
	_, stdout, r, _ := g.run("pr", opts, "--baseline", filepath.Join(g.dir, "base", "report.json"), "--select", "affected", "--sample", "0")
	s := r.Selection
	if s == nil || s.Ran != 2 || s.Carried != 1 || len(s.Cases) != 2 || s.Cases[1].Why != "uses get_town_forecast, near changed tool get_forecast" {
		t.Fatalf("selection %+v\n%s", s, stdout)
	}
}
