package initcmd_test

import (
	"bytes"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcp-eval/mcp-eval/app/apptest"
	"github.com/mcp-eval/mcp-eval/app/config"
	"github.com/mcp-eval/mcp-eval/app/initcmd"
	"github.com/mcp-eval/mcp-eval/app/pipeline"
	"github.com/mcp-eval/mcp-eval/internal/exitcode"
	"github.com/mcp-eval/mcp-eval/internal/mcptest"
	"github.com/mcp-eval/mcp-eval/llm/llmtest"
	"github.com/mcp-eval/mcp-eval/llm/providers"
	"github.com/mcp-eval/mcp-eval/llm/providertest"
)

// runInit runs `mcp-eval init ARGS…` in process (config.ParseInit, then
// initcmd.Run) and returns the exit code the error gives (exitcode.Of),
// stdout, and stderr with the error last as the program prints it.
func runInit(t *testing.T, getenv func(string) string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	cfg, o, err := config.ParseInit(args, getenv)
	if err == nil {
		err = initcmd.Run(t.Context(), cfg, o, pipeline.Env{Getenv: getenv, Stdout: &out, Stderr: &errb, Version: "dev"})
	}
	if err != nil && err.Error() != "" {
		fmt.Fprintf(&errb, "mcp-eval: %v\n", err)
	}
	return exitcode.Of(err), out.String(), errb.String()
}

// TestInitDraftsWithAModel: with --models the prompts are the model's,
// through the model-call cache (a second init asks it nothing) and
// priced; a model that is not served stops init before the server starts.
func TestInitDraftsWithAModel(t *testing.T) {
	def, _ := providers.Lookup("ollama")
	var calls atomic.Int64
	srv := httptest.NewServer(providertest.Emulate(t, def, llmtest.Options{Models: []string{"qwen2.5:7b"}, Reply: func(r llmtest.Request) llmtest.Reply {
		if r.LastUser() == "Say OK." {
			return llmtest.Reply{Text: "OK"}
		}
		calls.Add(1)
		return llmtest.Reply{Text: `"Is it raining in Lisbon right now?"`, InputTokens: 120, OutputTokens: 9}
	}}))
	defer srv.Close()
	mcpSrv := mcptest.Serve(t, mcptest.Options{}).URL
	dir := t.TempDir()
	args := []string{"--server-url", mcpSrv, "--models", "ollama:qwen2.5:7b", "--config", filepath.Join(dir, "mcp-eval.yaml"),
		"--golden", filepath.Join(dir, "golden/tasks.yaml"), "--workflow", filepath.Join(dir, "wf.yml"), "--cache-dir", filepath.Join(dir, "cache")}
	getenv := apptest.Env(map[string]string{"OLLAMA_HOST": srv.URL})
	code, stdout, stderr := runInit(t, getenv, args...)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	first := calls.Load()
	golden, _ := os.ReadFile(filepath.Join(dir, "golden/tasks.yaml"))
	if first == 0 || strings.Count(string(golden), "prompt: Is it raining in Lisbon right now?") != int(first) ||
		!strings.Contains(stdout, fmt.Sprintf("drafted the prompts with ollama:qwen2.5:7b: %d calls (0 answered from the cache), %d tokens in, %d out, $0.0000", first, 120*first, 9*first)) {
		t.Errorf("%d calls; output:\n%s\ngolden file:\n%s", first, stdout, golden)
	}
	conf, _ := os.ReadFile(filepath.Join(dir, "mcp-eval.yaml"))
	if !strings.Contains(string(conf), "models: ollama:qwen2.5:7b") || !strings.Contains(stdout, "  mcp-eval run --dry-run\n") {
		t.Errorf("mcp-eval.yaml:\n%s\noutput:\n%s", conf, stdout)
	}
	code, stdout, _ = runInit(t, getenv, append(args, "--force")...)
	if code != 0 || calls.Load() != first || !strings.Contains(stdout, fmt.Sprintf("%d calls (%d answered from the cache)", first, first)) {
		t.Errorf("the second init asked the model %d more times:\n%s", calls.Load()-first, stdout)
	}
	code, _, stderr = runInit(t, getenv, append(append([]string(nil), args...), "--force", "--models", "ollama:qwen2.5:3b")...)
	if code != 2 || !strings.Contains(stderr, `model ollama:qwen2.5:3b at `+srv.URL+`: the server serves no model "qwen2.5:3b" (did you mean "qwen2.5:7b"?`) {
		t.Errorf("an unknown model: exit %d, %s", code, stderr)
	}
}
