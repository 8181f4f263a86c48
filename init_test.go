package main

import (
	"bytes"
	"fmt"
	"math"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcp-eval/mcp-eval/app/apptest"
	"github.com/mcp-eval/mcp-eval/llm/llmtest"
	"github.com/mcp-eval/mcp-eval/llm/providers"
	"github.com/mcp-eval/mcp-eval/llm/providertest"
)

// freshClone is a directory holding what a clone of this repository holds
// for the example server (go.mod, go.sum, examples/), and an mcp-eval
// binary built from the working tree, so that commands run there as a new
// user runs them on a fresh clone: no key, nothing else.
func freshClone(t *testing.T) (dir, bin string) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds mcp-eval and runs the example server with go run")
	}
	dir = t.TempDir()
	bin = filepath.Join(t.TempDir(), "mcp-eval")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	for _, f := range []string{"go.mod", "go.sum"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, f), b, 0o644)
	}
	if out, err := exec.Command("cp", "-r", "examples", dir).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v\n%s", err, out)
	}
	return dir, bin
}

// runIn runs the binary in dir with only PATH, HOME and the Go caches of
// this environment, plus extra: no model key.
func runIn(t *testing.T, dir, bin string, extra map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
	for _, k := range []string{"GOPATH", "GOMODCACHE", "GOCACHE", "GOFLAGS", "GOPROXY", "GOTOOLCHAIN"} {
		if v := os.Getenv(k); v != "" {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
	}
	for k, v := range extra {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code = 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, out.String(), errb.String()
}

// TestInitOnAFreshClone is the first hour, as a new user would
// type it: on a fresh clone with no API key, init writes the three files;
// the dry run reports the plan and its estimated cost; a wrong tool name
// and a schema-invalid expected argument are caught with FILE:LINE; init
// again replaces nothing.
func TestInitOnAFreshClone(t *testing.T) {
	dir, bin := freshClone(t)
	code, stdout, stderr := runIn(t, dir, bin, nil, "init", "--server-cmd", "go run ./examples/weather-server")
	if code != 0 {
		t.Fatalf("init: exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range []string{
		"mcp-eval init: go run ./examples/weather-server serves 3 tools",
		"wrote mcp-eval.yaml (the server settings)",
		"wrote golden/tasks.yaml (4 draft cases: 3 tools, 1 negative, 0 near-duplicate pairs to tell apart; all draft: true)",
		"wrote .github/workflows/mcp-eval.yml (a stdio server run with go: the Docker action's image has no Go, so host mode",
		"note: send_email is not marked readOnlyHint: true, so the drafts stub it (defaults: stub_results): no draft executes it\n",
		"next: edit the drafts in golden/tasks.yaml, then check and price them without a model:\n  mcp-eval run --dry-run --models ollama:qwen2.5:7b,openai:gpt-4.1-mini\n",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("init's output lacks %q:\n%s", want, stdout)
		}
	}
	for _, f := range []string{"mcp-eval.yaml", "golden/tasks.yaml", ".github/workflows/mcp-eval.yml"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 6 { // go.mod go.sum examples + the three
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("init left %v in the directory", names)
	}

	// The next command it printed, word for word.
	code, stdout, stderr = runIn(t, dir, bin, nil, "run", "--dry-run", "--models", "ollama:qwen2.5:7b,openai:gpt-4.1-mini")
	if code != 0 {
		t.Fatalf("dry run: exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range []string{
		"dry run: golden/tasks.yaml is valid against go run ./examples/weather-server (3 tools): 4 cases, 4 of them drafts (draft: true); no model was called",
		"plan: 4 cases × 5 runs × 2 models = 40 runs",
		"openai:gpt-4.1-mini", "≈ $", "total ≈ $",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the dry run lacks %q:\n%s", want, stdout)
		}
	}

	// A wrong tool name and an argument the schema refuses.
	path := filepath.Join(dir, "golden/tasks.yaml")
	b, _ := os.ReadFile(path)
	g := strings.Replace(string(b), "expect_tool: get_weather", "expect_tool: get_wether", 1)
	g = strings.Replace(g, "expect_args: {customer: acme}", "expect_args: {customer: acme, limit: 0}", 1)
	os.WriteFile(path, []byte(g), 0o644)
	code, stdout, stderr = runIn(t, dir, bin, nil, "run", "--dry-run", "--models", "ollama:qwen2.5:7b")
	if code != 2 {
		t.Fatalf("dry run of a broken file: exit %d\n%s\n%s", code, stdout, stderr)
	}
	lines := strings.Split(g, "\n")
	lineOf := func(s string) int {
		for i, l := range lines {
			if strings.Contains(l, s) {
				return i + 1
			}
		}
		return 0
	}
	for _, want := range []string{
		fmt.Sprintf(`golden/tasks.yaml:%d: case "get-weather": expect_tool: the server has no tool "get_wether" (did you mean "get_weather"?)`, lineOf("get_wether")),
		fmt.Sprintf(`golden/tasks.yaml:%d: case "search-invoices": expect_args.limit: 0 does not validate against search_invoices's inputSchema: minimum: got 0, want 1`, lineOf("limit: 0")),
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}

	// Init again: nothing that exists is replaced.
	before, _ := os.ReadFile(path)
	code, _, stderr = runIn(t, dir, bin, nil, "init", "--server-cmd", "go run ./examples/weather-server")
	after, _ := os.ReadFile(path)
	if code != 2 || !strings.Contains(stderr, "already exist: nothing was written (--force replaces them)") || !bytes.Equal(before, after) {
		t.Errorf("a second init: exit %d, %s", code, stderr)
	}
}

// TestInitGoldenThroughEveryLocalEmulation: the golden file init writes
// runs end to end through each local server's emulation (and
// OpenRouter's), with a scripted model that gets the weather and the
// email right, picks the wrong tool for the invoices and answers the
// negative case in text; every provider's scores equal the hand
// computation: 3 of 4 cases select right (get-weather, send-email,
// no-tool-needed), the two right positive cases have the right
// arguments, nothing is activated falsely.
func TestInitGoldenThroughEveryLocalEmulation(t *testing.T) {
	dir, bin := freshClone(t)
	if code, out, errs := runIn(t, dir, bin, nil, "init", "--server-cmd", "go run ./examples/weather-server"); code != 0 {
		t.Fatalf("init: %d\n%s\n%s", code, out, errs)
	}
	script := func(r llmtest.Request) llmtest.Reply {
		if r.ToolResults() > 0 {
			return llmtest.Reply{Text: "Done."}
		}
		switch p := r.LastUser(); {
		case strings.Contains(p, "weather observation"):
			return llmtest.Reply{Calls: []llmtest.ReplyCall{{Name: "get_weather", Args: `{"city":"Paris"}`}}}
		case strings.Contains(p, "invoices"):
			return llmtest.Reply{Calls: []llmtest.ReplyCall{{Name: "get_weather", Args: `{"city":"acme"}`}}}
		case strings.Contains(p, "email"):
			return llmtest.Reply{Calls: []llmtest.ReplyCall{{Name: "send_email", Args: `{"to":"ana@example.com","subject":"mcp-eval","body":"mcp-eval"}`}}}
		}
		return llmtest.Reply{Text: "Canberra."}
	}
	for _, name := range []string{"ollama", "llamacpp", "vllm", "lmstudio", "openrouter"} {
		t.Run(name, func(t *testing.T) {
			def, _ := providers.Lookup(name)
			var calls atomic.Int64
			opts := llmtest.Options{Models: []string{"m"}, Reply: func(r llmtest.Request) llmtest.Reply {
				if r.LastUser() != "Say OK." { // the probe's one-token request (local servers)
					calls.Add(1)
				}
				return script(r)
			}}
			env := map[string]string{}
			if def.KeyRequired {
				opts.Key = "sk-or-v1-0123456789abcdef0123456789"
				env[def.Keys[0]] = opts.Key
			}
			srv := httptest.NewServer(providertest.Emulate(t, def, opts))
			defer srv.Close()
			_, rest, _ := strings.Cut(def.BaseURL, "://")
			apiPath := ""
			if i := strings.Index(rest, "/"); i >= 0 {
				apiPath = rest[i:]
			}
			env[def.BaseURLEnv] = srv.URL + apiPath
			out := filepath.Join(t.TempDir(), "out")
			// --gate fixed: the hand computation counts two runs a case;
			// the statistical gate's extra runs are tested in golden and bench.
			code, stdout, stderr := runIn(t, dir, bin, env, "run", "--models", name+":m", "--layers", "behavior", "--runs", "2",
				"--gate", "fixed", "--judge-model", "none", "--out", out, "--cache-dir", filepath.Join(t.TempDir(), "cache"))
			if code != 1 { // search-invoices fails its floor
				t.Fatalf("exit %d, want 1\n%s\n%s", code, stdout, stderr)
			}
			r := apptest.LoadReport(t, filepath.Join(out, "report.json"))
			want := map[string]float64{
				"behavior.passRate":            3.0 / 4,
				"behavior.selectionAccuracy":   3.0 / 4,
				"behavior.argumentAccuracy":    1,
				"behavior.falseActivationRate": 0,
			}
			for k, v := range want {
				if got, ok := r.Scores[k]; !ok || math.Abs(got-v) > 1e-9 {
					t.Errorf("%s = %v (present %v), want %v", k, got, ok, v)
				}
			}
			drafts := 0
			for _, c := range r.Cases {
				if c.Draft {
					drafts++
				}
			}
			// send_email is not read-only: the drafts stub it, so the
			// model's call of it never reaches the server.
			if strings.Contains(stderr, "was really executed") {
				t.Errorf("a draft executed a tool that is not read-only:\n%s", stderr)
			}
			if drafts != 4 || !strings.Contains(stdout, "4 golden cases are drafts") {
				t.Errorf("%d draft cases in the report; the terminal says:\n%s", drafts, stdout)
			}
			// 3 tool cases × 2 calls + 1 negative × 1, twice.
			if n := calls.Load(); n != 14 {
				t.Errorf("%d model calls, want 14", n)
			}
		})
	}
}
