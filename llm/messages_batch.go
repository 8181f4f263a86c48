package llm

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
)

// Anthropic's Message Batches API
// (https://docs.anthropic.com/en/docs/build-with-claude/batch-processing,
// https://docs.anthropic.com/en/api/creating-message-batches): POST
// /v1/messages/batches {"requests": [{"custom_id", "params"}]}; GET
// /v1/messages/batches/{id} reads processing_status (in_progress,
// canceling, ended); once ended, results_url serves JSONL lines
// {"custom_id", "result": {"type": succeeded|errored|canceled|expired}} in
// any order, matched by custom_id.

// CanBatch implements Batcher: the Messages API has batches wherever it
// is Anthropic's; a gateway without them refuses the submission and the
// items go synchronously.
func (p *Messages) CanBatch() bool { return true }

type anBatch struct {
	ID               string `json:"id"`
	ProcessingStatus string `json:"processing_status"`
	ResultsURL       string `json:"results_url"`
	RequestCounts    struct {
		Processing int `json:"processing"`
		Succeeded  int `json:"succeeded"`
		Errored    int `json:"errored"`
		Canceled   int `json:"canceled"`
		Expired    int `json:"expired"`
	} `json:"request_counts"`
}

// Batch implements Batcher.
func (p *Messages) Batch(ctx context.Context, items []BatchItem, o BatchOptions) (map[string]BatchResult, error) {
	if len(items) == 0 {
		return map[string]BatchResult{}, nil
	}
	o.defaults()
	type entry struct {
		CustomID string          `json:"custom_id"`
		Params   json.RawMessage `json:"params"`
	}
	reqs := make([]entry, 0, len(items))
	want := map[string]Request{}
	for _, it := range items {
		if err := checkRequest(it.Request); err != nil {
			return nil, fmt.Errorf("%s: %w", p.c.name, err)
		}
		body, err := encodeAnthropic(it.Request)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p.c.name, err)
		}
		reqs = append(reqs, entry{it.ID, body})
		want[it.ID] = it.Request
	}
	body, _ := json.Marshal(map[string]any{"requests": reqs})
	batches := p.c.url + "/batches"
	data, err := p.c.send(ctx, "POST", batches, "", body, 1<<20)
	if err != nil {
		return nil, fmt.Errorf("creating the message batch: %w", err)
	}
	var b anBatch
	if json.Unmarshal(data, &b) != nil || b.ID == "" {
		return nil, fmt.Errorf("%s: the message batch was created without an id: %.200s", p.c.name, data)
	}
	ended, err := pollBatch(ctx, o, func() (bool, string, error) {
		data, err := p.c.send(ctx, "GET", batches+"/"+url.PathEscape(b.ID), "", nil, 1<<20)
		if err != nil {
			return false, "", err
		}
		if err := json.Unmarshal(data, &b); err != nil {
			return false, "", fmt.Errorf("%s: message batch status: %w", p.c.name, err)
		}
		c := b.RequestCounts
		status := fmt.Sprintf("%s %d/%d", b.ProcessingStatus, c.Succeeded+c.Errored+c.Canceled+c.Expired, c.Processing+c.Succeeded+c.Errored+c.Canceled+c.Expired)
		return b.ProcessingStatus == "ended", status, nil
	}, func() error {
		_, err := p.c.send(ctx, "POST", batches+"/"+url.PathEscape(b.ID)+"/cancel", "", nil, 1<<20)
		return err
	})
	if err != nil || !ended {
		return map[string]BatchResult{}, err
	}
	if b.ResultsURL == "" {
		return nil, fmt.Errorf("%s: message batch %s ended without a results_url", p.c.name, b.ID)
	}
	data, err = p.c.send(ctx, "GET", b.ResultsURL, "", nil, maxBatchBody)
	if err != nil {
		return nil, fmt.Errorf("reading the message batch's results: %w", err)
	}
	out := map[string]BatchResult{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), maxResponseBody)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var l struct {
			CustomID string `json:"custom_id"`
			Result   struct {
				Type    string          `json:"type"`
				Message json.RawMessage `json:"message"`
				Error   json.RawMessage `json:"error"`
			} `json:"result"`
		}
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return out, fmt.Errorf("%s: message batch results: %w", p.c.name, err)
		}
		req, ok := want[l.CustomID]
		if !ok {
			return out, fmt.Errorf("%s: message batch results name custom_id %q, which was not sent", p.c.name, l.CustomID)
		}
		var r BatchResult
		switch l.Result.Type {
		case "succeeded":
			resp, err := decodeAnthropic(l.Result.Message, req.Model)
			if err == nil {
				formatAnswer(resp, req)
			}
			r = BatchResult{Response: resp, Err: err}
		case "errored":
			// The error is the synchronous API's error body.
			e := &APIError{Provider: p.c.name, StatusCode: 400}
			parseErrorBody(e, l.Result.Error)
			e.Message = redact(e.Message, p.c.secrets)
			r = BatchResult{Err: e}
		default: // canceled, expired
			r = BatchResult{Err: &BatchItemError{ID: l.CustomID, Status: l.Result.Type, Msg: "the batch ended before this request ran"}}
		}
		p.c.batchAnswered(req.Model, r.Response, r.Err)
		out[l.CustomID] = r
	}
	if err := sc.Err(); err != nil {
		return out, fmt.Errorf("%s: message batch results: %w", p.c.name, err)
	}
	return out, nil
}
