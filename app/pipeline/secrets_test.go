package pipeline_test

// The secrets matrix ("Secrets (every sink, every spelling)"):
// every source of a secret × every way of writing it (redacttest.Examples,
// one per row of redact.Table at least) × every file and stream a run
// writes, through real runs: the fixture server echoes each secret in the
// spelling, a fake model echoes it, a server process prints it. Each cell
// is run twice: once with the secret declared, where no sink may hold it,
// and once with the same value undeclared (the control), where every sink
// the cell names must hold it, so the matrix cannot pass by the echo never
// arriving or by the detector missing a spelling.

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html"
	"io/fs"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-eval/mcp-eval/app/action"
	"github.com/mcp-eval/mcp-eval/app/apptest"
	"github.com/mcp-eval/mcp-eval/app/config"
	"github.com/mcp-eval/mcp-eval/app/pipeline"
	"github.com/mcp-eval/mcp-eval/internal/mcptest"
	"github.com/mcp-eval/mcp-eval/internal/redact"
	"github.com/mcp-eval/mcp-eval/internal/redact/redacttest"
	"github.com/mcp-eval/mcp-eval/llm/llmtest"
)

// secretOf is source i's secret: every character class an encoder treats
// specially, and the source's number, so that no two sources share one.
func secretOf(i int) string { return fmt.Sprintf(`s%d/<&"\' +%c`, i, 'A'+i) }

// setup is what a run is given: flags, the environment, a config file, and
// secrets the run learns once it is under way (as an OAuth access token
// is: Redactor.Add).
type setup struct {
	args  []string
	env   map[string]string
	yaml  string
	add   []redact.Secret
	input map[string]string // the Action's INPUT_* beside env
}

// source is one way a run is told a secret: declare tells it, control
// hands the run the same value without saying it is a secret (nil: the
// value is simply not given).
type source struct {
	name             string
	action           bool // also in the Action's runs
	declare, control func(s *setup, v string)
}

var sources = []source{
	{name: "--header X-Api-Key (a credential by its name)", action: true,
		declare: func(s *setup, v string) { s.header("X-Api-Key: " + v) },
		control: func(s *setup, v string) { s.header("X-Trace: " + v) }},
	{name: "--header Authorization: Bearer $VAR", action: true,
		declare: func(s *setup, v string) {
			s.env["MCP_EVAL_T_BEARER"] = v
			s.header("Authorization: Bearer $MCP_EVAL_T_BEARER")
		},
		control: func(s *setup, v string) { s.env["MCP_EVAL_T_BEARER"] = v }},
	{name: "--header X-Tenant: $VAR (a value from the environment)", action: true,
		declare: func(s *setup, v string) { s.env["MCP_EVAL_T_TENANT"] = v; s.header("X-Tenant: $MCP_EVAL_T_TENANT") },
		control: func(s *setup, v string) { s.header("X-Tenant: " + v) }},
	{name: "--header Proxy-Authorization: Basic (the password)", action: true,
		declare: func(s *setup, v string) {
			s.header("Proxy-Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte("alice:"+v)))
		}},
	{name: "secrets: in mcp-eval.yaml (--secrets)",
		declare: func(s *setup, v string) { s.env["MCP_EVAL_T_SERVICE"] = v; s.yaml += "secrets: [MCP_EVAL_T_SERVICE]\n" },
		control: func(s *setup, v string) { s.env["MCP_EVAL_T_SERVICE"] = v }},
	{name: "OPENAI_API_KEY", action: true, declare: func(s *setup, v string) { s.env["OPENAI_API_KEY"] = v }},
	{name: "ANTHROPIC_API_KEY", action: true, declare: func(s *setup, v string) { s.env["ANTHROPIC_API_KEY"] = v }},
	{name: "ANTHROPIC_AUTH_TOKEN", action: true, declare: func(s *setup, v string) { s.env["ANTHROPIC_AUTH_TOKEN"] = v }},
	{name: "the GitHub token", action: true, declare: func(s *setup, v string) {
		s.env["GITHUB_TOKEN"] = v
		if s.input != nil {
			s.input["INPUT_GITHUB-TOKEN"] = "ghs_" + v
		}
	}},
	{name: "Redactor.Add during the run (an OAuth access token)",
		declare: func(s *setup, v string) { s.add = append(s.add, redact.Secret{Source: "OAuth access token", Value: v}) }},
}

func (s *setup) header(h string) {
	if s.input != nil {
		s.input["INPUT_HEADERS"] += h + "\n"
		return
	}
	s.args = append(s.args, "--header", h)
}

// sinks are what a run wrote, by name: the files under --out, the cache
// entries, stdout, stderr and the error, and the Action's files.
type sinks map[string]string

func (s sinks) addDir(t *testing.T, prefix, dir string) {
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			rel, _ := filepath.Rel(dir, p)
			name := prefix + filepath.ToSlash(rel)
			switch {
			case strings.HasPrefix(rel, "transcripts"):
				name = "transcripts"
			case prefix == "cache/":
				name = "cache entries"
			}
			s[name] += string(b)
		}
		return nil
	})
}

// kind is one sort of run and the sinks the echo reaches in it.
type kind struct {
	name   string
	action bool
	// reach are the sinks every cell of this kind must reach in the
	// control run; lines are those a two-line spelling reaches.
	reach, lines []string
	// split are the sinks a secret cut over two notifications reaches
	// (the JSON ones, where the pieces are seen joined: Redactor.JSON);
	// none when the kind's server cannot send it so.
	split []string
	// group is how many sources share a run: the renderers shorten long
	// messages (the terminal's at 1000 runes, a stderr line at 300 bytes),
	// and each source must fit whole.
	group int
	run   func(t *testing.T, c *cell) sinks
}

// cell is one run of the matrix: every source's secret written as one
// example (exs, one per source, in order), told to the run or not.
type cell struct {
	exs []redacttest.Example
	s   *setup
	l   *learner
}

// texts are the secrets so written, as text.
func (c *cell) texts() []string {
	var out []string
	for _, e := range c.exs {
		out = append(out, e.Text)
	}
	return out
}

// learner adds the secrets a run learns to its redactor on the first
// request the server gets, when the run is under way (as an OAuth token
// arrives), and closes learnt then.
type learner struct {
	red    *redact.Redactor
	add    []redact.Secret
	once   sync.Once
	learnt chan struct{}
	then   func() // runs once learnt is closed, before the request goes on
	early  bool   // learn when the run starts, not at the first request
	t      *testing.T
}

func (l *learner) now() {
	l.once.Do(func() {
		for _, s := range l.add {
			if err := l.red.Add(s); err != nil {
				l.t.Error(err)
			}
		}
		close(l.learnt)
		if l.then != nil {
			l.then()
		}
	})
}

var kinds = []kind{
	{name: "conformance over HTTP", group: 4,
		reach: []string{"report.json", "summary.md", "junit.xml", "results.sarif", "server.log", "stdout"},
		// The terminal shortens a quoted SSE event to 200 bytes, before the
		// echo in it.
		lines: []string{"report.json", "summary.md", "junit.xml", "server.log"},
		split: []string{"report.json"},
		run:   conformanceRun("text")},
	{name: "conformance, --format json", group: 5,
		reach: []string{"stdout"}, lines: []string{"stdout"}, split: []string{"stdout"},
		run: conformanceRun("json")},
	{name: "model layers", group: 10,
		reach: []string{"report.json", "report.html", "transcripts", "cache entries"},
		lines: []string{"report.html", "transcripts", "cache entries"},
		run:   modelRun},
	{name: "a server that fails to start", group: 2,
		reach: []string{"error", "server.log"}, lines: []string{"server.log"},
		run: failedStart},
	{name: "the Action on a pull request", group: 4, action: true,
		reach: []string{"annotations", "job summary", "report.json"},
		lines: []string{"job summary", "report.json"},
		split: []string{"report.json"},
		run:   actionRun(false)},
	{name: "the Action, could not evaluate", group: 2, action: true,
		reach: []string{"annotations", "job summary", "GITHUB_OUTPUT", "PR comment", "error"},
		run:   actionRun(true)},
}

// TestSecretsMatrix runs every cell. Built with -race (the README's test
// command) it runs one example of each row of redact.Table, every source
// and sink still: the race detector makes each run several times slower,
// and masking is no concurrent code. .ci/run runs the whole matrix
// without -race as well.
func TestSecretsMatrix(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the fixture 2 × kinds × spellings times")
	}
	examples := redacttest.Examples(secretOf(0))
	rows := map[string]bool{}
	for _, k := range kinds {
		var used []int
		for n, src := range sources {
			if !k.action || src.action {
				used = append(used, n)
			}
		}
		t.Run(k.name, func(t *testing.T) {
			for i := range examples {
				row := k.name + examples[i].Row
				if examples[i].Split {
					row += " split" // a class of its own: the pieces are joined, not decoded
				}
				if raceEnabled() && rows[row] || examples[i].Split && k.split == nil {
					continue
				}
				rows[row] = true
				t.Run(examples[i].Name, func(t *testing.T) {
					t.Parallel()
					// Each run mostly waits (on processes, on the loopback),
					// so the cells of an example run at once: t.Run from
					// several goroutines, which -parallel does not bound.
					var wg sync.WaitGroup
					for group := range slices.Chunk(used, k.group) {
						for _, masked := range []bool{true, false} {
							name := fmt.Sprintf("sources %d-%d, %s", group[0]+1, group[len(group)-1]+1, map[bool]string{true: "declared", false: "control"}[masked])
							wg.Go(func() { t.Run(name, func(t *testing.T) { checkCell(t, k, i, group, masked) }) })
						}
					}
					wg.Wait()
				})
			}
		})
	}
}

// checkCell runs one kind with the secrets of the sources used in example
// i's spelling, declared (masked) or not (the control), and checks the
// sinks.
func checkCell(t *testing.T, k kind, i int, used []int, masked bool) {
	c := &cell{s: &setup{env: map[string]string{}}}
	if k.action {
		c.s.input = map[string]string{}
	}
	for _, n := range used {
		src := sources[n]
		v := secretOf(n + 1)
		c.exs = append(c.exs, redacttest.Examples(v)[i])
		if masked {
			src.declare(c.s, v)
		} else if src.control != nil {
			src.control(c.s, v)
		}
	}
	if !masked && c.s.input != nil && c.s.input["INPUT_GITHUB-TOKEN"] == "" {
		c.s.input["INPUT_GITHUB-TOKEN"] = "ghs_control-token-0123" // the Action needs one to comment
	}
	c.l = &learner{add: c.s.add, learnt: make(chan struct{}), t: t}
	got := k.run(t, c)
	want := k.reach
	if c.exs[0].Lines {
		want = k.lines
	}
	split := c.exs[0].Split
	if split {
		want = k.split
	}
	for j, n := range used {
		v := secretOf(n + 1)
		det, err := redact.New(redact.Secret{Source: "detector", Value: v})
		if err != nil {
			t.Fatal(err)
		}
		seen := det.String
		if split {
			// The halves are seen joined where they are JSON values of
			// one path; elsewhere no half may be left in any form.
			seen = func(s string) string {
				if json.Valid([]byte(s)) {
					return string(det.JSON([]byte(s)))
				}
				return s
			}
		}
		for _, sink := range slices.Sorted(maps.Keys(got)) {
			text := got[sink]
			if !masked {
				continue
			}
			if split {
				for _, half := range halves(v) {
					if strings.Contains(text, half) {
						t.Errorf("%s holds half the secret of %s (%q)", sink, sources[n].name, half)
					}
				}
			}
			if seen(text) != text {
				t.Errorf("%s holds the secret of %s:\n%s", sink, sources[n].name, excerpt(text, det))
			} else if strings.Contains(text, v) {
				t.Errorf("%s holds the secret of %s as it is", sink, sources[n].name)
			}
		}
		if masked {
			continue
		}
		for _, sink := range want {
			if text := got[sink]; seen(text) == text {
				t.Errorf("control: the echo of %s (%q) never reached %s, or the detector missed it; this cell tests nothing:\n%.3000s",
					sources[n].name, c.exs[j].Text, sink, text)
			}
		}
	}
}

// halves are the two pieces mcptest.Echo.Split sends of v, as they may be
// written: as they are, inside a JSON string, in HTML.
func halves(v string) []string {
	var out []string
	for _, h := range []string{v[:len(v)/2], v[len(v)/2:]} {
		q, _ := json.Marshal(h)
		out = append(out, h, string(q[1:len(q)-1]), html.EscapeString(h))
	}
	return out
}

// excerpt shows where det finds the secret in text.
func excerpt(text string, det *redact.Redactor) string {
	lines := strings.Split(text, "\n")
	var out []string
	for i, l := range lines {
		if det.String(l) != l || i+1 < len(lines) && det.String(l+"\n"+lines[i+1]) != l+"\n"+lines[i+1] {
			out = append(out, fmt.Sprintf("%d: %.400s", i+1, l))
		}
	}
	if len(out) == 0 {
		return "(across lines)"
	}
	return strings.Join(out[:min(len(out), 6)], "\n")
}

// fixture serves the test server echoing c's texts; its first request
// tells c's learner the run is under way.
func fixture(t *testing.T, c *cell) string {
	echo := &mcptest.Echo{}
	for _, e := range c.exs {
		switch {
		case e.Split:
			echo.Split = append(echo.Split, e.Text)
		case e.Name == "sse data lines":
			// The split is the server's, on the wire: the value cut over
			// two data: lines of one event.
			echo.SSE = append(echo.SSE, strings.Replace(e.Text, "\ndata: ", "", 1))
		case e.Wire != "":
			echo.Wire = append(echo.Wire, e.Wire)
		default:
			echo.Texts = append(echo.Texts, e.Text)
		}
	}
	h := mcptest.NewHandler(mcptest.Options{Echo: echo})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.l.now()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// evaluate runs pipeline.Evaluate with c's setup and args, the redactor
// made here so that the secrets learnt during the run are added to it
// (c.l), and returns the sinks.
func evaluate(t *testing.T, c *cell, args ...string) (sinks, error) {
	s := c.s
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	args = append(append(args, "--out", out, "--runs", "1", "--start-timeout", "1m", "--timeout", "5s", "--cache-dir", filepath.Join(dir, "cache")), s.args...)
	if s.yaml != "" {
		p := filepath.Join(dir, "mcp-eval.yaml")
		if err := os.WriteFile(p, []byte(s.yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, "--config", p)
	}
	getenv := func(k string) string { return s.env[k] }
	cfg, err := config.Parse(args[0], args[1:], getenv)
	if err != nil {
		t.Fatal(err)
	}
	if c.l.red, err = cfg.Redactor(getenv); err != nil {
		t.Fatal(err)
	}
	if c.l.early {
		c.l.now()
	}
	var stdout, stderr strings.Builder
	_, err = pipeline.Evaluate(context.Background(), cfg, pipeline.Env{Getenv: getenv, Stdout: &stdout, Stderr: &stderr, Redactor: c.l.red})
	got := sinks{"stdout": stdout.String(), "stderr": stderr.String()}
	if err != nil {
		got["error"] = err.Error()
	}
	got.addDir(t, "", out)
	got.addDir(t, "cache/", filepath.Join(dir, "cache"))
	return got, err
}

// conformanceRun is a conformance run of the echoing fixture, with a
// --server-start process that prints the echo into server.log once the
// run has learnt its secrets.
func conformanceRun(format string) func(t *testing.T, c *cell) sinks {
	return func(t *testing.T, c *cell) sinks {
		dir := t.TempDir()
		learnt, printed, echo := filepath.Join(dir, "learnt"), filepath.Join(dir, "printed"), filepath.Join(dir, "echo")
		// The process gets the test's environment, not the run's: the
		// echo is in a file.
		if err := os.WriteFile(echo, []byte(strings.Join(c.texts(), "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		start := fmt.Sprintf(`while [ ! -e '%s' ]; do sleep 0.02; done; cat '%s'; : > '%s'; exec sleep 60`, learnt, echo, printed)
		url := fixture(t, c)
		go func() {
			<-c.l.learnt
			os.WriteFile(learnt, nil, 0o644)
		}()
		// The server's first answer waits for the print, so server.log
		// holds it before the run ends.
		c.l.then = func() { waitFile(t, printed) }
		// The checks that quote the echo (the tool name, the SSE events of
		// a tools/call answer, the notifications/message events); the
		// serverInfo name is in every report.
		checks := "lint/tool-name-pattern,jsonrpc/only-messages,result-type/tools-call"
		if c.exs[0].Split {
			checks += ",logging/no-unrequested"
		}
		got, err := evaluate(t, c, "conformance", "--format", format, "--server-start", start, "--server-url", url, "--checks", checks)
		if err != nil {
			t.Fatalf("%v\n%s", err, got["stderr"])
		}
		return got
	}
}

// modelRun is a behaviour run on the echoing fixture through two fake
// models (Chat Completions and Messages) that echo the secrets and the
// credentials they are sent; the case fails (expect_answer), so its
// transcripts are written and shown in report.html.
func modelRun(t *testing.T, c *cell) sinks {
	dir := t.TempDir()
	model := httptest.NewServer(&llmtest.Echo{Texts: c.texts(), Tool: "get_forecast", Args: `{"city":"Paris"}`})
	t.Cleanup(model.Close)
	c.s.env["OPENAI_BASE_URL"] = model.URL + "/v1"
	c.s.env["ANTHROPIC_BASE_URL"] = model.URL
	golden := filepath.Join(dir, "tasks.yaml")
	os.WriteFile(golden, []byte("- id: forecast\n  prompt: What is the forecast for Paris?\n  expect_tool: get_forecast\n  expect_answer: {contains: [never said]}\n"), 0o644)
	got, err := evaluate(t, c, "run", "--server-url", fixture(t, c), "--layers", "behavior", "--golden", golden,
		"--models", "openai:echo,anthropic:echo", "--judge-model", "none")
	if err != nil {
		t.Fatalf("%v\n%s", err, got["stderr"])
	}
	return got
}

// failedStart is a --server-start command that prints the secrets, on
// one line, and exits before it serves: exit 3, with its last output
// quoted in the error. (A --server-cmd that exits at once is reported
// without its stderr when the exit races the client's first write, as
// "broken pipe" or "closed its stdout": the Layer 0 transport's to fix.)
func failedStart(t *testing.T, c *cell) sinks {
	c.l.early = true // no server answers: the secrets are added as the run starts
	got, err := evaluate(t, c, "conformance", "--server-start", failingStart(t, c), "--server-url", apptest.NoServerURL)
	if err == nil {
		t.Fatal("a server that exits at once was evaluated")
	}
	return got
}

// failingStart is a command that prints c's texts on one line and exits 1.
func failingStart(t *testing.T, c *cell) string {
	echo := filepath.Join(t.TempDir(), "echo")
	if err := os.WriteFile(echo, []byte(strings.Join(c.texts(), " ")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf(`cat '%s'; exit 1`, echo)
}

// actionRun is `mcp-eval action` on a labelled pull request against a
// fake GitHub API: a conformance run of the echoing fixture (the
// annotations and the job summary quote its findings), or, with fail, a
// server-start command that prints the secrets and exits (the error is in
// the annotation, the summary, the outputs and the comment).
func actionRun(fail bool) func(t *testing.T, c *cell) sinks {
	return func(t *testing.T, c *cell) sinks {
		dir := t.TempDir()
		gh := &fakeGitHub{}
		api := httptest.NewServer(gh.handler())
		t.Cleanup(api.Close)
		outputs, summary := filepath.Join(dir, "output"), filepath.Join(dir, "summary")
		os.WriteFile(outputs, nil, 0o644)
		os.WriteFile(summary, nil, 0o644)
		event, _ := filepath.Abs("../../github/testdata/pull_request_labeled.json")
		env := map[string]string{
			"GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": event,
			"GITHUB_REPOSITORY": "acme/weather-mcp", "GITHUB_RUN_ID": "100", "GITHUB_API_URL": api.URL,
			"GITHUB_OUTPUT": outputs, "GITHUB_STEP_SUMMARY": summary, "GITHUB_WORKSPACE": dir, "RUNNER_TEMP": dir,
			"INPUT_LAYERS": "conformance", "INPUT_RUNS": "1", "INPUT_OUT": "out", "INPUT_COMMENT": "true", "INPUT_TIMEOUT": "5s",
		}
		if fail {
			env["INPUT_SERVER-START"], env["INPUT_SERVER-URL"] = failingStart(t, c), apptest.NoServerURL
		} else {
			env["INPUT_SERVER-URL"] = fixture(t, c)
		}
		maps.Copy(env, c.s.env)
		maps.Copy(env, c.s.input)
		var stdout, stderr strings.Builder
		err := action.Command(context.Background(), nil, pipeline.Env{Getenv: func(k string) string { return env[k] }, Stdout: &stdout, Stderr: &stderr})
		got := sinks{"stderr": stderr.String()}
		if err != nil {
			got["error"] = err.Error()
		}
		var commands []string
		for _, l := range strings.Split(stdout.String(), "\n") {
			// ::add-mask:: hands the runner each secret on purpose.
			if !strings.HasPrefix(l, "::add-mask::") {
				commands = append(commands, l)
			}
		}
		got["annotations"] = strings.Join(commands, "\n")
		b, _ := os.ReadFile(outputs)
		got["GITHUB_OUTPUT"] = string(b)
		b, _ = os.ReadFile(summary)
		got["job summary"] = string(b)
		got["PR comment"] = strings.Join(gh.comments(), "\n")
		got.addDir(t, "", filepath.Join(dir, "out"))
		return got
	}
}

// fakeGitHub serves the REST calls of a pull request run, in the API's
// shapes: the run and its workflow (no earlier runs, so no baseline), the
// labels, and the comments.
type fakeGitHub struct {
	mu     sync.Mutex
	bodies []string
}

func (f *fakeGitHub) comments() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.bodies)
}

func (f *fakeGitHub) handler() http.Handler {
	const p = "/repos/acme/weather-mcp"
	js := func(w http.ResponseWriter, v any) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(v)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+p+"/actions/runs/100", func(w http.ResponseWriter, r *http.Request) {
		js(w, map[string]any{"id": 100, "workflow_id": 7, "run_number": 100, "event": "pull_request"})
	})
	mux.HandleFunc("GET "+p+"/actions/workflows/7/runs", func(w http.ResponseWriter, r *http.Request) {
		js(w, map[string]any{"total_count": 0, "workflow_runs": []any{}})
	})
	mux.HandleFunc("GET "+p+"/issues/7/labels", func(w http.ResponseWriter, r *http.Request) {
		js(w, []any{map[string]any{"name": "run-evals"}})
	})
	mux.HandleFunc("GET "+p+"/issues/7/comments", func(w http.ResponseWriter, r *http.Request) { js(w, []any{}) })
	mux.HandleFunc("POST "+p+"/issues/7/comments", func(w http.ResponseWriter, r *http.Request) {
		var c struct{ Body string }
		json.NewDecoder(r.Body).Decode(&c)
		f.mu.Lock()
		f.bodies = append(f.bodies, c.Body)
		f.mu.Unlock()
		w.WriteHeader(http.StatusCreated)
		js(w, map[string]any{"id": 1, "body": c.Body, "user": map[string]any{"login": "github-actions[bot]", "type": "Bot"}})
	})
	mux.HandleFunc("GET /user", func(w http.ResponseWriter, r *http.Request) {
		js(w, map[string]any{"login": "github-actions[bot]", "type": "Bot"})
	})
	// A GitHub Enterprise Server base URL, as any GITHUB_API_URL but
	// api.github.com is taken for.
	return http.StripPrefix("/api/v3", mux)
}

func waitFile(t *testing.T, p string) {
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(p); err == nil {
			return
		}
	}
	t.Errorf("%s never appeared", p)
}

// raceEnabled reports whether the test binary was built with -race.
func raceEnabled() bool {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range bi.Settings {
		if s.Key == "-race" {
			return s.Value == "true"
		}
	}
	return false
}
