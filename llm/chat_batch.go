package llm

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/url"
	"strings"
)

// OpenAI's Batch API (https://platform.openai.com/docs/guides/batch and
// https://platform.openai.com/docs/api-reference/batch): the requests are
// a JSONL file uploaded with purpose "batch" (POST /v1/files), one line
// {"custom_id", "method": "POST", "url": "/v1/chat/completions", "body"}
// each; POST /v1/batches starts it with a completion window of 24h; GET
// /v1/batches/{id} reads its status (validating, in_progress, finalizing,
// then completed, failed, expired or cancelled; cancelling between);
// answers are lines of the output file, errors of the error file, in any
// order, matched by custom_id.

// CanBatch implements Batcher: ChatOptions.Batch.
func (p *Chat) CanBatch() bool { return p.o.Batch }

// oaBatch is the batch object.
type oaBatch struct {
	ID           string `json:"id"`
	Status       string `json:"status"`
	OutputFileID string `json:"output_file_id"`
	ErrorFileID  string `json:"error_file_id"`
	Errors       *struct {
		Data []struct {
			Code    string `json:"code"`
			Message string `json:"message"`
			Line    *int   `json:"line"`
		} `json:"data"`
	} `json:"errors"`
	RequestCounts struct {
		Total     int `json:"total"`
		Completed int `json:"completed"`
		Failed    int `json:"failed"`
	} `json:"request_counts"`
}

// oaBatchLine is one line of an output or error file.
type oaBatchLine struct {
	CustomID string `json:"custom_id"`
	Response *struct {
		StatusCode int             `json:"status_code"`
		Body       json.RawMessage `json:"body"`
	} `json:"response"`
	Error *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// Batch implements Batcher. Every item must name the same model: the API
// takes one model per input file.
func (p *Chat) Batch(ctx context.Context, items []BatchItem, o BatchOptions) (map[string]BatchResult, error) {
	if !p.o.Batch {
		return nil, fmt.Errorf("%s at %s has no batch API", p.c.name, p.o.Base)
	}
	if len(items) == 0 {
		return map[string]BatchResult{}, nil
	}
	o.defaults()
	base := strings.TrimSuffix(p.c.url, "/chat/completions")
	u, err := url.Parse(p.c.url)
	if err != nil {
		return nil, err
	}
	endpoint := u.Path // "/v1/chat/completions": the line's url and the batch's endpoint
	model := items[0].Request.Model
	var jsonl bytes.Buffer
	for _, it := range items {
		if it.Request.Model != model {
			return nil, fmt.Errorf("%s: a batch holds one model; got %s and %s", p.c.name, model, it.Request.Model)
		}
		req := it.Request
		if _, ok := p.noTemperature.Load(req.Model); ok {
			req.Temperature = nil
		}
		if err := checkRequest(req); err != nil {
			return nil, fmt.Errorf("%s: %w", p.c.name, err)
		}
		body, err := encodeChat(req, p.o)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p.c.name, err)
		}
		line, _ := json.Marshal(struct {
			CustomID string          `json:"custom_id"`
			Method   string          `json:"method"`
			URL      string          `json:"url"`
			Body     json.RawMessage `json:"body"`
		}{it.ID, "POST", endpoint, body})
		jsonl.Write(line)
		jsonl.WriteByte('\n')
	}
	var form bytes.Buffer
	mw := multipart.NewWriter(&form)
	_ = mw.WriteField("purpose", "batch")
	fw, _ := mw.CreateFormFile("file", "mcp-eval-batch.jsonl")
	fw.Write(jsonl.Bytes())
	mw.Close()
	data, err := p.c.send(ctx, "POST", base+"/files", mw.FormDataContentType(), form.Bytes(), 1<<20)
	if err != nil {
		return nil, fmt.Errorf("uploading the batch file: %w", err)
	}
	var file struct {
		ID string `json:"id"`
	}
	if json.Unmarshal(data, &file) != nil || file.ID == "" {
		return nil, fmt.Errorf("%s: the file upload answered no id: %.200s", p.c.name, data)
	}
	create, _ := json.Marshal(map[string]string{"input_file_id": file.ID, "endpoint": endpoint, "completion_window": "24h"})
	data, err = p.c.send(ctx, "POST", base+"/batches", "", create, 1<<20)
	if err != nil {
		return nil, fmt.Errorf("creating the batch: %w", err)
	}
	var b oaBatch
	if json.Unmarshal(data, &b) != nil || b.ID == "" {
		return nil, fmt.Errorf("%s: the batch was created without an id: %.200s", p.c.name, data)
	}
	ended, err := pollBatch(ctx, o, func() (bool, string, error) {
		data, err := p.c.send(ctx, "GET", base+"/batches/"+url.PathEscape(b.ID), "", nil, 1<<20)
		if err != nil {
			return false, "", err
		}
		if err := json.Unmarshal(data, &b); err != nil {
			return false, "", fmt.Errorf("%s: batch status: %w", p.c.name, err)
		}
		status := fmt.Sprintf("%s %d/%d", b.Status, b.RequestCounts.Completed+b.RequestCounts.Failed, b.RequestCounts.Total)
		switch b.Status {
		case "completed", "failed", "expired", "cancelled":
			return true, status, nil
		}
		return false, status, nil
	}, func() error {
		_, err := p.c.send(ctx, "POST", base+"/batches/"+url.PathEscape(b.ID)+"/cancel", "", []byte("{}"), 1<<20)
		return err
	})
	if err != nil {
		return nil, err
	}
	if !ended {
		return map[string]BatchResult{}, nil
	}
	if b.Status == "failed" {
		msg := "no reason given"
		if b.Errors != nil && len(b.Errors.Data) > 0 {
			e := b.Errors.Data[0]
			msg = e.Code + ": " + e.Message
			if e.Line != nil {
				msg += fmt.Sprintf(" (line %d)", *e.Line)
			}
		}
		return nil, fmt.Errorf("%s: the batch failed validation: %s", p.c.name, msg)
	}
	want := map[string]Request{}
	for _, it := range items {
		want[it.ID] = it.Request
	}
	out := map[string]BatchResult{}
	for _, fid := range []string{b.OutputFileID, b.ErrorFileID} {
		if fid == "" {
			continue
		}
		data, err := p.c.send(ctx, "GET", base+"/files/"+url.PathEscape(fid)+"/content", "", nil, maxBatchBody)
		if err != nil {
			return out, fmt.Errorf("reading the batch's results: %w", err)
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(make([]byte, 1<<20), maxResponseBody)
		for sc.Scan() {
			if len(bytes.TrimSpace(sc.Bytes())) == 0 {
				continue
			}
			var l oaBatchLine
			if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
				return out, fmt.Errorf("%s: batch results: %w", p.c.name, err)
			}
			req, ok := want[l.CustomID]
			if !ok {
				return out, fmt.Errorf("%s: batch results name custom_id %q, which was not sent", p.c.name, l.CustomID)
			}
			out[l.CustomID] = p.batchLine(l, req)
		}
		if err := sc.Err(); err != nil {
			return out, fmt.Errorf("%s: batch results: %w", p.c.name, err)
		}
	}
	return out, nil
}

// batchLine reads one result line: a 2xx body decoded as a synchronous
// answer, anything else the item's error.
func (p *Chat) batchLine(l oaBatchLine, req Request) BatchResult {
	if l.Error != nil {
		err := &BatchItemError{ID: l.CustomID, Status: l.Error.Code, Msg: l.Error.Message}
		p.c.batchAnswered(req.Model, nil, err)
		return BatchResult{Err: err}
	}
	if l.Response == nil {
		return BatchResult{Err: &BatchItemError{ID: l.CustomID, Status: "failed", Msg: "no response and no error"}}
	}
	if l.Response.StatusCode < 200 || l.Response.StatusCode > 299 {
		e := &APIError{Provider: p.c.name, StatusCode: l.Response.StatusCode}
		parseErrorBody(e, l.Response.Body)
		e.Message = redact(e.Message, p.c.secrets)
		p.c.batchAnswered(req.Model, nil, e)
		return BatchResult{Err: e}
	}
	resp, err := decodeChat(l.Response.Body, req.Model, p.c.name)
	p.c.batchAnswered(req.Model, resp, err)
	return BatchResult{Response: resp, Err: err}
}
