package bench

// TestGateErrorRates measures the Layer 1 gate as a user meets it: the
// mcp-eval binary, the fixture MCP server and a scripted model speaking
// the OpenAI Chat Completions wire format that draws afresh for every
// conversation, over real HTTP on loopback, no cache. Twelve soft cases
// ask for the forecast of twelve cities; the model calls get_forecast with
// each case's own probability (95 % when healthy) and otherwise answers in
// text. For --gate fixed and --gate statistical side by side it prints:
//
//   - A/A: a run against a baseline from the same server and model;
//   - harmless change: the same, with the baseline's fingerprint moved
//     (a reworded description: drops are no longer excused as drift);
//   - main: each run gated against the previous green one, as the Action
//     chains main's runs (a red run does not become the baseline);
//   - one case 95 % → 50 %, and every case 95 % → 80 %: the share caught;
//   - the model calls of the A/A runs against five fixed runs.
//
//	MCP_EVAL_BENCH_GATE=1 go test ./bench -run TestGateErrorRates -v
//	MCP_EVAL_BENCH_GATE=1 BENCH_GATE_TRIALS=100 go test ./bench -run TestGateErrorRates -v -timeout 60m
//
// It asserts nothing about time; the table is the result.

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mcp-eval/mcp-eval/internal/mcptest"
)

var gateCities = []string{"Oslo", "Lima", "Kyiv", "Pune", "Rome", "Baku", "Doha", "Kobe", "Nice", "Bern", "Riga", "Accra"}

// drawModel answers the first turn of a conversation with get_forecast
// with the probability set for the prompt's city, else in text; a turn
// after a tool result ends the conversation.
type drawModel struct {
	mu            sync.Mutex
	rng           *rand.Rand
	rates         map[string]float64
	calls, convos atomic.Int64
}

func (m *drawModel) set(rates map[string]float64) {
	m.mu.Lock()
	m.rates = rates
	m.mu.Unlock()
}

func (m *drawModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/models") {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"object":"list","data":[{"id":"draw","object":"model","created":1,"owned_by":"bench"}]}`)
		return
	}
	if r.URL.Path != "/v1/chat/completions" {
		http.Error(w, `{"error":{"message":"not found","type":"invalid_request_error"}}`, http.StatusNotFound)
		return
	}
	m.calls.Add(1)
	var req struct {
		Messages []struct {
			Role    string `json:"role"`
			Content any    `json:"content"`
		} `json:"messages"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&req); err != nil || len(req.Messages) == 0 {
		http.Error(w, `{"error":{"message":"bad request","type":"invalid_request_error"}}`, http.StatusBadRequest)
		return
	}
	last := req.Messages[len(req.Messages)-1]
	msg, finish := `{"role":"assistant","content":"The forecast is in."}`, "stop"
	if last.Role == "user" {
		m.convos.Add(1)
		city := ""
		for _, c := range gateCities {
			if strings.Contains(fmt.Sprint(last.Content), c) {
				city = c
			}
		}
		m.mu.Lock()
		hit := m.rng.Float64() < m.rates[city]
		m.mu.Unlock()
		if hit {
			args, _ := json.Marshal(fmt.Sprintf(`{"city":%q}`, city))
			msg, finish = `{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_forecast","arguments":`+string(args)+`}}]}`, "tool_calls"
		} else {
			msg = `{"role":"assistant","content":"I would rather not look that up."}`
		}
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"id":"chatcmpl-draw","object":"chat.completion","created":1,"model":"draw","choices":[{"index":0,"message":%s,"finish_reason":%q}],"usage":{"prompt_tokens":50,"completion_tokens":10,"total_tokens":60}}`, msg, finish)
}

func TestGateErrorRates(t *testing.T) {
	if os.Getenv("MCP_EVAL_BENCH_GATE") != "1" {
		t.Skip("gate bench: set MCP_EVAL_BENCH_GATE=1 to run it")
	}
	trials := 40
	if s := os.Getenv("BENCH_GATE_TRIALS"); s != "" {
		trials, _ = strconv.Atoi(s)
	}
	bin := benchBinary(t)
	server := mcptest.Serve(t, mcptest.Options{}).URL
	model := &drawModel{rng: rand.New(rand.NewPCG(26, 12))}
	srv := httptest.NewServer(model)
	defer srv.Close()
	dir := t.TempDir()
	golden := filepath.Join(dir, "tasks.yaml")
	var g strings.Builder
	g.WriteString("version: 1\ncases:\n")
	for _, c := range gateCities {
		fmt.Fprintf(&g, "  - id: forecast-%s\n    prompt: What is the forecast for %s?\n    expect_tool: get_forecast\n", strings.ToLower(c), c)
	}
	if err := os.WriteFile(golden, []byte(g.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	healthy := map[string]float64{}
	for _, c := range gateCities {
		healthy[c] = 0.95
	}
	oneDrop := map[string]float64{}
	allDrop := map[string]float64{}
	for _, c := range gateCities {
		oneDrop[c], allDrop[c] = 0.95, 0.8
	}
	oneDrop["Kobe"] = 0.5

	n := 0
	run := func(method, baseline string) (failed bool, report string, convos int64) {
		n++
		out := filepath.Join(dir, fmt.Sprintf("run-%d", n))
		args := []string{"run", "--server-url", server, "--models", "openai:draw", "--golden", golden, "--layers", "behavior",
			"--runs", "5", "--gate", method, "--judge-model", "none", "--no-cache", "--cache-dir", filepath.Join(dir, "cache"),
			"--out", out, "--quiet"}
		if baseline != "" {
			args = append(args, "--baseline", baseline)
		}
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), "OPENAI_BASE_URL="+srv.URL+"/v1", "OPENAI_API_KEY=sk-bench-0123456789")
		before := model.convos.Load()
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code > 1 {
			t.Fatalf("%s run exited %d", method, code)
		}
		return code == 1, filepath.Join(out, "report.json"), model.convos.Load() - before
	}
	// moved rewrites a report's fingerprint, as a reworded description
	// would move it.
	moved := func(path string) string {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var r map[string]any
		json.Unmarshal(b, &r)
		r["server"].(map[string]any)["fingerprint"] = strings.Repeat("f", 64)
		b, _ = json.Marshal(r)
		p := path + ".moved.json"
		os.WriteFile(p, b, 0o644)
		return p
	}

	type row struct {
		aa, harmless, main, one, all int
		convos                       int64
	}
	results := map[string]*row{}
	for _, method := range []string{"fixed", "statistical"} {
		r := &row{}
		results[method] = r
		model.set(healthy)
		_, green, _ := run(method, "")
		for range trials {
			base := green
			model.set(healthy)
			f, rep, c := run(method, base)
			r.convos += c
			if f {
				r.aa++
			}
			if f, _, _ := run(method, moved(base)); f {
				r.harmless++
			}
			// main: gate against the last green run; a green one becomes
			// the next baseline.
			if f, rep2, _ := run(method, green); f {
				r.main++
			} else {
				green = rep2
			}
			_ = rep
			model.set(oneDrop)
			if f, _, _ := run(method, moved(base)); f {
				r.one++
			}
			model.set(allDrop)
			if f, _, _ := run(method, moved(base)); f {
				r.all++
			}
		}
	}
	pct := func(k int) string {
		p := float64(k) / float64(trials)
		se := math.Sqrt(max(p*(1-p), 1.0/float64(trials)) / float64(trials))
		return fmt.Sprintf("%d/%d = %.0f %% (±%.0f)", k, trials, 100*p, 100*1.96*se)
	}
	fixedCalls := float64(trials * len(gateCities) * 5)
	t.Logf("| gate | A/A fails | harmless change fails | main red | one case 95→50 %% caught | all cases 95→80 %% caught | A/A conversations vs 5 fixed runs |")
	t.Logf("|---|---|---|---|---|---|---|")
	for _, m := range []string{"fixed", "statistical"} {
		r := results[m]
		t.Logf("| %s | %s | %s | %s | %s | %s | %.2f× |", m, pct(r.aa), pct(r.harmless), pct(r.main), pct(r.one), pct(r.all), float64(r.convos)/fixedCalls)
	}
}
