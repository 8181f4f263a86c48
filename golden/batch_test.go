package golden

import (
	"bytes"
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mcp-eval/mcp-eval/llm"
	"github.com/mcp-eval/mcp-eval/llm/llmtest"
	"github.com/mcp-eval/mcp-eval/llm/providers"
	"github.com/mcp-eval/mcp-eval/llm/providertest"
	"github.com/mcp-eval/mcp-eval/report"
	"github.com/mcp-eval/mcp-eval/tasks/taskstest"
)

// batchGolden has two one-message cases (one judged) and a multi-turn
// case.
const batchGolden = `- id: paris
  prompt: "Weather in Paris?"
  expect_tool: get_weather
  expect_args: {city: Paris}
- id: judged
  prompt: "Is it sunny in Paris today?"
  expect_tool: get_weather
  rubric: The answer says what the weather in Paris is.
- id: chat
  turns:
    - {prompt: 'Weather in Paris, first turn?', expect_tool: get_weather}
    - {prompt: 'And again, second turn?', expect_tool: get_weather}
`

// batchReply calls get_weather for a user message, answers a tool result
// in text, and grades structured-output requests (the judge's) pass.
func batchReply(r llmtest.Request) llmtest.Reply {
	switch {
	case r.Format != nil:
		return llmtest.Reply{Text: `{"reason": "it names the weather", "verdict": "pass"}`, InputTokens: 200, OutputTokens: 20}
	case r.Messages[len(r.Messages)-1].Role == "user":
		return llmtest.Reply{Calls: []llmtest.ReplyCall{{Name: "get_weather", Args: `{"city":"Paris"}`}}, InputTokens: 100, OutputTokens: 10}
	}
	return llmtest.Reply{Text: "It is sunny in Paris.", InputTokens: 120, OutputTokens: 8}
}

type batchRun struct {
	summary *Summary
	mr      *ModelRun
	log     *providertest.Log
	stderr  string
}

// runBatchGolden runs batchGolden on provider's emulation (model m, the
// judge too) with --batch mode, 2 runs, no cache on disk to read.
func runBatchGolden(t *testing.T, provider, mode string, quirks map[string]bool) batchRun {
	return runBatchGoldenOn(t, provider, provider, mode, quirks)
}

// runBatchGoldenOn is runBatchGolden with provider's client talking to the
// emulation of another provider (a compatible server).
func runBatchGoldenOn(t *testing.T, provider, emulation, mode string, quirks map[string]bool) batchRun {
	t.Helper()
	return runBatchModels(t, provider, emulation, mode, quirks, []string{"m"}, provider+":m")
}

// runBatchModels is runBatchGoldenOn on the tested models (names the
// emulation serves) and judge ("" for the default).
func runBatchModels(t *testing.T, provider, emulation, mode string, quirks map[string]bool, models []string, judge string) batchRun {
	t.Helper()
	specs := make([]string, len(models))
	for i, m := range models {
		specs[i] = provider + ":" + m
	}
	def, _ := providers.Lookup(provider)
	emu, _ := providers.Lookup(emulation)
	srv, _, log := providertest.Serve(t, emu, llmtest.Options{Models: models, Key: "k-0123456789", Reply: batchReply, Quirks: quirks})
	env := map[string]string{def.BaseURLEnv: srv.URL + strings.TrimPrefix(def.BaseURL, "https://api.openai.com"), def.Keys[0]: "k-0123456789"}
	if provider == "anthropic" {
		env[def.BaseURLEnv] = srv.URL
	}
	dir := t.TempDir()
	golden := writeGolden(t, dir, batchGolden)
	p, err := NewPlan(PlanOptions{Behavior: true, Getenv: func(k string) string { return env[k] }, PlanFlags: PlanFlags{Golden: golden,
		Models: strings.Join(specs, ","), JudgeModel: judge, ModelConcurrency: 2, ModelTimeout: 10 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	mr, err := p.Bind(noServer{}, taskstest.WeatherTools(t), RunOptions{Runs: 2, ModelConcurrency: 2, Stderr: &stderr, BatchPoll: time.Millisecond,
		RunFlags: RunFlags{NoCache: true, CacheDir: filepath.Join(dir, "cache"), MaxCallsPerTurn: 32, ModelSeed: -1, Batch: mode, BatchWait: time.Hour}})
	if err != nil {
		t.Fatal(err)
	}
	s := mr.Behavior(context.Background())
	return batchRun{s, mr, log, stderr.String()}
}

// billed sums the usage of the runs and the judge: all of it, and the part
// billed at the batch rate.
func (b batchRun) billed() (all, batched llm.Usage) {
	for _, r := range b.mr.Results() {
		all.Add(r.Transcript.Usage)
	}
	for _, j := range b.mr.judges {
		all.Add(j.calls.Usage())
	}
	if all.Batch != nil {
		batched = *all.Batch
	}
	return all, batched
}

// outcome is what a run decided, for comparing runs.
func outcome(s *Summary) []string {
	var out []string
	for _, c := range s.Cases {
		out = append(out, c.ID+" "+string(c.Status)+" "+strings.Join(c.JudgeReasons, ";"))
	}
	return out
}

// TestBatchAutoScoresAsSynchronous is the nightly run of --batch auto on
// both batch APIs' emulations: the first turn of each one-message case
// (2 cases × 2 runs) and the judge's call (the judged case's two runs
// are alike, so one verdict request) are
// answered by one batch each, billed at the batch rate; the multi-turn
// case and every later turn go synchronously; and the scores, statuses and
// verdicts are those of the synchronous run.
func TestBatchAutoScoresAsSynchronous(t *testing.T) {
	for _, provider := range []string{"openai", "anthropic"} {
		t.Run(provider, func(t *testing.T) {
			t.Parallel()
			sync := runBatchGolden(t, provider, "never", nil)
			auto := runBatchGolden(t, provider, "auto", nil)
			if !reflect.DeepEqual(sync.summary.Scores, auto.summary.Scores) || !reflect.DeepEqual(outcome(sync.summary), outcome(auto.summary)) {
				t.Fatalf("scores differ:\nsync %v %v\nauto %v %v", sync.summary.Scores, outcome(sync.summary), auto.summary.Scores, outcome(auto.summary))
			}
			for _, c := range auto.summary.Cases {
				if c.Status != report.StatusPass {
					t.Errorf("case %s: %s, want pass", c.ID, c.Status)
				}
			}
			syncAll, syncBatched := sync.billed()
			autoAll, autoBatched := auto.billed()
			if syncBatched != (llm.Usage{}) {
				t.Errorf("--batch never billed %+v at the batch rate", syncBatched)
			}
			// 4 first turns of 100 in / 10 out, 1 verdict of 200 / 20.
			want := llm.Usage{InputTokens: 4*100 + 200, OutputTokens: 4*10 + 20}
			if autoBatched != want {
				t.Errorf("billed at the batch rate: %+v, want %+v", autoBatched, want)
			}
			autoAll.Batch, syncAll.Batch = nil, nil
			if autoAll != syncAll {
				t.Errorf("tokens differ: auto %+v, sync %+v", autoAll, syncAll)
			}
			batches := 0
			for _, r := range auto.log.All() {
				if r.Method == "POST" && (r.Path == "/v1/batches" || r.Path == "/v1/messages/batches") {
					batches++
				}
			}
			if batches != 2 {
				t.Errorf("%d batches created, want 2 (first turns, judge)", batches)
			}
			syncPosts, autoPosts := len(sync.log.Posts()), len(auto.log.Posts())
			// auto's POSTs: 2 batch creations (+2 file uploads on OpenAI)
			// and the synchronous calls: all but 4 first turns and 1 verdict.
			extra := 2
			if provider == "openai" {
				extra = 4
			}
			if autoPosts != syncPosts-5+extra {
				t.Errorf("synchronous run %d POSTs, batch run %d; want %d", syncPosts, autoPosts, syncPosts-5+extra)
			}
			if !strings.Contains(auto.stderr, "4 of 4 first turns answered at the batch price") || !strings.Contains(auto.stderr, "1 of 1 judge calls answered") {
				t.Errorf("stderr does not say what the batches answered:\n%s", auto.stderr)
			}
		})
	}
}

// TestBatchCrossJudges: with two tested models judging each other, each
// judge's calls go in a batch of their own, to that judge's model, and
// the scores are those of the synchronous run.
func TestBatchCrossJudges(t *testing.T) {
	t.Parallel()
	models := []string{"m", "n"}
	sync := runBatchModels(t, "openai", "openai", "never", nil, models, "")
	auto := runBatchModels(t, "openai", "openai", "auto", nil, models, "")
	if !reflect.DeepEqual(sync.summary.Scores, auto.summary.Scores) || !reflect.DeepEqual(outcome(sync.summary), outcome(auto.summary)) {
		t.Fatalf("scores differ:\nsync %v %v\nauto %v %v", sync.summary.Scores, outcome(sync.summary), auto.summary.Scores, outcome(auto.summary))
	}
	// 8 first turns of 100 in / 10 out, 2 verdicts (one per model's judged
	// case) of 200 / 20, every one answered by a batch.
	_, autoBatched := auto.billed()
	if want := (llm.Usage{InputTokens: 8*100 + 2*200, OutputTokens: 8*10 + 2*20}); autoBatched != want {
		t.Errorf("billed at the batch rate: %+v, want %+v", autoBatched, want)
	}
	for _, spec := range []string{"openai:m", "openai:n"} {
		bj := auto.mr.judges[spec]
		if bj == nil || bj.calls.Usage().Batch == nil || bj.calls.Usage().Batch.InputTokens == 0 {
			t.Errorf("judge %s: %+v; want verdicts of its own, from a batch", spec, bj)
		}
	}
	// Each judge batch asks only its own model.
	judgeModels := map[string]int{}
	for _, r := range auto.log.All() {
		if r.Method == "POST" && r.Path == "/v1/files" {
			for _, line := range strings.Split(string(r.Body), "\n") {
				if strings.Contains(line, "response_format") {
					for _, m := range models {
						if strings.Contains(line, `"model":"`+m+`"`) {
							judgeModels[m]++
						}
					}
				}
			}
		}
	}
	if judgeModels["m"] != 1 || judgeModels["n"] != 1 {
		t.Errorf("judge requests in batch files by model: %v; want one each", judgeModels)
	}
	if strings.Contains(auto.stderr, "grades its own runs") {
		t.Errorf("a self-grading warning with two models judging each other:\n%s", auto.stderr)
	}
}

// TestBatchExpiredFinishesSynchronously: a batch that expires half done
// leaves its other half to synchronous calls, and the run scores as a
// synchronous one; only what the batch answered is billed at its rate.
func TestBatchExpiredFinishesSynchronously(t *testing.T) {
	for _, provider := range []string{"openai", "anthropic"} {
		t.Run(provider, func(t *testing.T) {
			t.Parallel()
			sync := runBatchGolden(t, provider, "never", nil)
			exp := runBatchGolden(t, provider, "auto", map[string]bool{"batch-expire": true})
			if !reflect.DeepEqual(sync.summary.Scores, exp.summary.Scores) || !reflect.DeepEqual(outcome(sync.summary), outcome(exp.summary)) {
				t.Fatalf("scores differ:\nsync %v\nexpired %v", outcome(sync.summary), outcome(exp.summary))
			}
			_, batched := exp.billed()
			// The emulations expire the second half of each batch: 2 of the
			// 4 first turns answered, and the judge's one call expired.
			if want := (llm.Usage{InputTokens: 2 * 100, OutputTokens: 2 * 10}); batched != want {
				t.Errorf("billed at the batch rate: %+v, want %+v (half of each batch)", batched, want)
			}
			if !strings.Contains(exp.stderr, "2 of 4 first turns answered at the batch price; 2 go synchronously") ||
				!strings.Contains(exp.stderr, "0 of 1 judge calls answered at the batch price; 1 go synchronously") {
				t.Errorf("stderr:\n%s", exp.stderr)
			}
		})
	}
}

// TestBatchCancelledFallsBack: a batch cancelled by someone else answers
// nothing; the run sends everything synchronously, with the synchronous
// run's scores, and bills nothing at the batch rate.
func TestBatchCancelledFallsBack(t *testing.T) {
	t.Parallel()
	sync := runBatchGolden(t, "openai", "never", nil)
	fb := runBatchGolden(t, "openai", "auto", map[string]bool{"batch-cancelled": true})
	if !reflect.DeepEqual(outcome(sync.summary), outcome(fb.summary)) {
		t.Fatalf("scores differ:\nsync %v\ncancelled %v", outcome(sync.summary), outcome(fb.summary))
	}
	if _, batched := fb.billed(); batched != (llm.Usage{}) {
		t.Errorf("a cancelled batch answered nothing, yet %+v was billed at its rate", batched)
	}
	if !strings.Contains(fb.stderr, "0 of 4 first turns answered at the batch price; 4 go synchronously") {
		t.Errorf("stderr:\n%s", fb.stderr)
	}
}

// TestBatchRefusedFallsBack: an OpenAI-compatible server without the Batch
// API (vLLM here) refuses the upload; the run warns once per batch and
// sends everything synchronously, with the synchronous run's scores.
func TestBatchRefusedFallsBack(t *testing.T) {
	t.Parallel()
	sync := runBatchGoldenOn(t, "openai", "vllm", "never", nil)
	fb := runBatchGoldenOn(t, "openai", "vllm", "auto", nil)
	if !reflect.DeepEqual(outcome(sync.summary), outcome(fb.summary)) || len(fb.log.Posts()) != len(sync.log.Posts())+2 {
		t.Fatalf("sync %v (%d POSTs)\nrefused %v (%d POSTs: two refused uploads more)", outcome(sync.summary), len(sync.log.Posts()), outcome(fb.summary), len(fb.log.Posts()))
	}
	if strings.Count(fb.stderr, "warning: batch of") != 2 || !strings.Contains(fb.stderr, "those calls go synchronously") {
		t.Errorf("want one warning per refused batch:\n%s", fb.stderr)
	}
}
