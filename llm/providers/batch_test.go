package providers

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mcp-eval/mcp-eval/llm"
	"github.com/mcp-eval/mcp-eval/llm/llmtest"
	"github.com/mcp-eval/mcp-eval/llm/providertest"
)

// instant polls without waiting, on a clock that moves a minute a poll.
func instant(deadline time.Duration) llm.BatchOptions {
	now := time.Unix(0, 0)
	return llm.BatchOptions{
		Deadline: now.Add(deadline),
		Sleep:    func(context.Context, time.Duration) error { now = now.Add(time.Minute); return nil },
		Now:      func() time.Time { return now },
		Poll:     time.Minute, Grace: 5 * time.Minute,
	}
}

// batchers are the registry's providers with a batch API.
func batchers(t *testing.T) []*llm.Def {
	var out []*llm.Def
	for _, def := range All() {
		p, _ := providertest.Rig(t, def, llmtest.Options{})
		if b, ok := p.(llm.Batcher); ok && b.CanBatch() {
			out = append(out, def)
		}
	}
	if len(out) != 2 {
		t.Fatalf("want the two providers with batch APIs (openai, anthropic), got %d", len(out))
	}
	return out
}

// batchScript answers by the prompt, so each item's answer is its own.
func batchScript(r llmtest.Request) llmtest.Reply {
	prompt := r.Messages[len(r.Messages)-1].Content
	if strings.HasPrefix(prompt, "call ") {
		return llmtest.Reply{Calls: []llmtest.ReplyCall{{Name: "get_weather", Args: fmt.Sprintf(`{"city":%q}`, strings.TrimPrefix(prompt, "call "))}}, InputTokens: 50, OutputTokens: 9}
	}
	return llmtest.Reply{Text: "echo " + prompt, InputTokens: 30, OutputTokens: 4}
}

func batchItems(n int) []llm.BatchItem {
	zero := 0.0
	var items []llm.BatchItem
	for i := range n {
		prompt := fmt.Sprintf("call City%d", i)
		if i%2 == 1 {
			prompt = fmt.Sprintf("say %d", i)
		}
		items = append(items, llm.BatchItem{ID: fmt.Sprintf("r%d", i), Request: llm.Request{Model: "model-a", Temperature: &zero,
			Tools: []llm.Tool{weather}, Messages: []llm.Message{{Role: llm.RoleUser, Content: prompt}}}})
	}
	return items
}

// TestBatchEqualsSynchronous: every provider with a batch API answers each
// item of a batch as its synchronous API answers the same request (message,
// stop reason, usage), matched by id although the results come in another
// order, with the whole usage marked as billed at the batch rate.
func TestBatchEqualsSynchronous(t *testing.T) {
	for _, def := range batchers(t) {
		t.Run(def.Name, func(t *testing.T) {
			t.Parallel()
			p, log := providertest.Rig(t, def, llmtest.Options{Models: []string{"model-a"}, Key: "k-0123456789", Reply: batchScript})
			items := batchItems(5)
			got, err := p.(llm.Batcher).Batch(t.Context(), items, instant(time.Hour))
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(items) {
				t.Fatalf("%d results for %d items", len(got), len(items))
			}
			for _, it := range items {
				r := got[it.ID]
				if r.Err != nil || r.Response == nil {
					t.Fatalf("%s: %v", it.ID, r.Err)
				}
				sync, err := p.Complete(t.Context(), it.Request)
				if err != nil {
					t.Fatal(err)
				}
				b := *r.Response
				if b.Usage.Batch == nil || !reflect.DeepEqual(*b.Usage.Batch, sync.Usage) {
					t.Errorf("%s: batch usage %+v, want all of %+v billed at the batch rate", it.ID, b.Usage.Batch, sync.Usage)
				}
				b.Usage.Batch = nil
				b.ID, sync.ID = "", ""
				for i := range b.Message.ToolCalls {
					b.Message.ToolCalls[i].ID, sync.Message.ToolCalls[i].ID = "", ""
				}
				if !reflect.DeepEqual(b, *sync) {
					t.Errorf("%s: batch answer %+v\nsynchronous %+v", it.ID, b, *sync)
				}
			}
			posts := 0
			for _, r := range log.All() {
				if strings.Contains(r.Path, "/batches") && r.Method == http.MethodPost {
					posts++
				}
			}
			if posts != 1 {
				t.Errorf("%d batches created, want 1", posts)
			}
		})
	}
}

// TestBatchExpiredAndCancelled: a batch that expires half done returns the
// half it answered and an expiry error for each other item; one that is
// still running at the deadline is cancelled and returns what finished,
// the rest without a result (left to the synchronous calls).
func TestBatchExpiredAndCancelled(t *testing.T) {
	for _, def := range batchers(t) {
		t.Run(def.Name+"/expired", func(t *testing.T) {
			t.Parallel()
			p, _ := providertest.Rig(t, def, llmtest.Options{Models: []string{"model-a"}, Reply: batchScript, Quirks: map[string]bool{"batch-expire": true}})
			got, err := p.(llm.Batcher).Batch(t.Context(), batchItems(4), instant(time.Hour))
			if err != nil {
				t.Fatal(err)
			}
			for i := range 4 {
				r, ok := got[fmt.Sprintf("r%d", i)]
				var be *llm.BatchItemError
				switch {
				case !ok:
					t.Errorf("r%d: no result", i)
				case i < 2 && (r.Err != nil || r.Response == nil):
					t.Errorf("r%d: %v, want an answer", i, r.Err)
				case i >= 2 && (!errors.As(r.Err, &be) || !strings.Contains(be.Status, "expired")):
					t.Errorf("r%d: %v, want an expiry", i, r.Err)
				}
			}
		})
		t.Run(def.Name+"/deadline", func(t *testing.T) {
			t.Parallel()
			p, log := providertest.Rig(t, def, llmtest.Options{Models: []string{"model-a"}, Reply: batchScript, Quirks: map[string]bool{"batch-never-ends": true}})
			got, err := p.(llm.Batcher).Batch(t.Context(), batchItems(4), instant(10*time.Minute))
			if err != nil {
				t.Fatal(err)
			}
			answered := 0
			for _, r := range got {
				if r.Response != nil {
					answered++
				}
			}
			if answered != 2 {
				t.Errorf("%d answered after the cancellation, want the 2 that had run: %+v", answered, got)
			}
			cancels := 0
			for _, r := range log.All() {
				if strings.HasSuffix(r.Path, "/cancel") {
					cancels++
				}
			}
			if cancels != 1 {
				t.Errorf("%d cancel requests, want 1", cancels)
			}
		})
		t.Run(def.Name+"/errored item", func(t *testing.T) {
			t.Parallel()
			p, _ := providertest.Rig(t, def, llmtest.Options{Models: []string{"model-a"}, Reply: batchScript})
			items := batchItems(2)
			items[1].Request.Model = "model-b" // not served: that item errors, the other is answered
			if def.Name == "openai" {
				items[1].Request.Model = "model-a"
				items[1].Request.Messages = append(items[1].Request.Messages, llm.Message{Role: llm.RoleTool, ToolCallID: "nope", Content: "x"})
			}
			got, err := p.(llm.Batcher).Batch(t.Context(), items, instant(time.Hour))
			if err != nil {
				t.Fatal(err)
			}
			var ae *llm.APIError
			if got["r0"].Response == nil || !errors.As(got["r1"].Err, &ae) || ae.StatusCode/100 != 4 {
				t.Errorf("results %+v, want r0 answered and r1 the API's 4xx", got)
			}
		})
	}
}

// TestBatchEmulationsAreStrict: the emulations refuse what the batch APIs
// refuse.
func TestBatchEmulationsAreStrict(t *testing.T) {
	t.Parallel()
	openai, _ := Lookup("openai")
	srv, _, _ := providertest.Serve(t, openai, llmtest.Options{})
	upload := func(purpose, name, data string) (int, string) {
		var form bytes.Buffer
		mw := multipart.NewWriter(&form)
		mw.WriteField("purpose", purpose)
		fw, _ := mw.CreateFormFile("file", name)
		io.WriteString(fw, data)
		mw.Close()
		res, err := http.Post(srv.URL+"/v1/files", mw.FormDataContentType(), &form)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		var f struct{ ID string }
		json.Unmarshal(b, &f)
		return res.StatusCode, f.ID
	}
	post := func(path, body string) (int, map[string]any) {
		res, err := http.Post(srv.URL+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var m map[string]any
		json.NewDecoder(res.Body).Decode(&m)
		return res.StatusCode, m
	}
	get := func(path string) map[string]any {
		res, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var m map[string]any
		json.NewDecoder(res.Body).Decode(&m)
		return m
	}
	if code, _ := upload("batch", "in.json", "{}"); code != 400 {
		t.Errorf("a batch file not .jsonl: %d", code)
	}
	if code, _ := upload("training", "in.jsonl", "{}"); code != 400 {
		t.Errorf("an unknown purpose: %d", code)
	}
	line := `{"custom_id":"a","method":"POST","url":"/v1/chat/completions","body":{"model":"m","messages":[{"role":"user","content":"x"}]}}`
	_, visionFile := upload("vision", "in.jsonl", line)
	if code, _ := post("/v1/batches", fmt.Sprintf(`{"input_file_id":%q,"endpoint":"/v1/chat/completions","completion_window":"24h"}`, visionFile)); code != 400 {
		t.Errorf("an input file of another purpose: %d", code)
	}
	for name, c := range map[string]struct{ file, window, endpoint, wantCode string }{
		"duplicate custom_id": {line + "\n" + line, "24h", "/v1/chat/completions", "duplicate_custom_id"},
		"mismatched url":      {strings.Replace(line, "/v1/chat/completions", "/v1/embeddings", 1), "24h", "/v1/chat/completions", "mismatched_endpoint"},
		"two models":          {line + "\n" + strings.Replace(strings.Replace(line, `"a"`, `"b"`, 1), `"m"`, `"n"`, 1), "24h", "/v1/chat/completions", "model_mismatch"},
		"not JSON":            {"{", "24h", "/v1/chat/completions", "invalid_json_line"},
		"window":              {line, "1h", "/v1/chat/completions", ""},
	} {
		_, id := upload("batch", "in.jsonl", c.file)
		code, b := post("/v1/batches", fmt.Sprintf(`{"input_file_id":%q,"endpoint":%q,"completion_window":%q}`, id, c.endpoint, c.window))
		if c.wantCode == "" {
			if code != 400 {
				t.Errorf("%s: %d, want 400", name, code)
			}
			continue
		}
		if code != 200 || b["status"] != "validating" {
			t.Fatalf("%s: %d %v", name, code, b)
		}
		st := get("/v1/batches/" + b["id"].(string))
		if st["status"] != "failed" || !strings.Contains(fmt.Sprint(st["errors"]), c.wantCode) {
			t.Errorf("%s: %v, want failed with %s", name, st, c.wantCode)
		}
		if code, _ := post("/v1/batches/"+b["id"].(string)+"/cancel", "{}"); code != 400 {
			t.Errorf("%s: cancelling a failed batch: %d", name, code)
		}
	}

	anthropic, _ := Lookup("anthropic")
	asrv, _, _ := providertest.Serve(t, anthropic, llmtest.Options{})
	params := `{"model":"m","max_tokens":10,"messages":[{"role":"user","content":"x"}]}`
	for name, body := range map[string]string{
		"no requests":         `{"requests":[]}`,
		"custom_id pattern":   `{"requests":[{"custom_id":"a.b","params":` + params + `}]}`,
		"custom_id too long":  `{"requests":[{"custom_id":"` + strings.Repeat("a", 65) + `","params":` + params + `}]}`,
		"duplicate custom_id": `{"requests":[{"custom_id":"a","params":` + params + `},{"custom_id":"a","params":` + params + `}]}`,
		"stream":              `{"requests":[{"custom_id":"a","params":` + strings.Replace(params, `"model"`, `"stream":true,"model"`, 1) + `}]}`,
	} {
		req, _ := http.NewRequest("POST", asrv.URL+"/v1/messages/batches", strings.NewReader(body))
		req.Header.Set("anthropic-version", "2023-06-01")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != 400 {
			t.Errorf("anthropic %s: %d, want 400", name, res.StatusCode)
		}
	}
	req, _ := http.NewRequest("POST", asrv.URL+"/v1/messages/batches", strings.NewReader(`{"requests":[{"custom_id":"a","params":`+params+`}]}`))
	req.Header.Set("anthropic-version", "2023-06-01")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var b map[string]any
	json.NewDecoder(res.Body).Decode(&b)
	res.Body.Close()
	req, _ = http.NewRequest("GET", asrv.URL+"/v1/messages/batches/"+fmt.Sprint(b["id"])+"/results", nil)
	req.Header.Set("anthropic-version", "2023-06-01")
	res, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if b["processing_status"] != "in_progress" || res.StatusCode != 400 {
		t.Errorf("results of a batch in progress: %v, %d (want 400)", b["processing_status"], res.StatusCode)
	}
}
