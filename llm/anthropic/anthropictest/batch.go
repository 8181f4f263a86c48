package anthropictest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sync"

	"github.com/mcp-eval/mcp-eval/llm/llmtest"
)

// batchServer is Anthropic's Message Batches API in front of the Messages
// emulation, strict where the API is
// (https://docs.anthropic.com/en/api/creating-message-batches,
// https://docs.anthropic.com/en/api/retrieving-message-batch-results):
//
//   - POST /v1/messages/batches takes {"requests": [{"custom_id",
//     "params"}]}: at least one and at most 100 000 requests, each
//     custom_id matching ^[a-zA-Z0-9_-]{1,64}$ and unique in the batch,
//     params an object without "stream": true; anything else is a 400
//     invalid_request_error naming requests.N;
//   - the params themselves are checked as each request runs: one the
//     Messages API refuses is an "errored" result with that error;
//   - each GET of the batch moves it on: in_progress, then ended with a
//     results_url; results are JSONL lines {"custom_id", "result": {"type":
//     "succeeded", "message"} | {"type": "errored", "error"} | {"type":
//     "canceled"} | {"type": "expired"}} in reverse order (the API keeps no
//     order), and reading them before the batch ended is a 400;
//   - POST .../cancel: canceling, then ended, what had not run canceled.
//
// Quirks: "batch-expire" ends it with the second half of its requests
// expired; "batch-never-ends" keeps it in_progress (half of it run) until
// canceled.
type batchServer struct {
	o        llmtest.Options
	messages http.Handler

	mu      sync.Mutex
	n       int
	batches map[string]*msgBatch
}

type msgBatch struct {
	ID                string         `json:"id"`
	Type              string         `json:"type"`
	ProcessingStatus  string         `json:"processing_status"`
	RequestCounts     map[string]int `json:"request_counts"`
	ResultsURL        *string        `json:"results_url"`
	CancelInitiatedAt *string        `json:"cancel_initiated_at"`
	EndedAt           *string        `json:"ended_at"`
	CreatedAt         string         `json:"created_at"`
	ExpiresAt         string         `json:"expires_at"`
	reqs              []msgRequest
	header            http.Header
	results           []byte
}

type msgRequest struct {
	CustomID string          `json:"custom_id"`
	Params   json.RawMessage `json:"params"`
}

var (
	customID   = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)
	batchPaths = regexp.MustCompile(`^/v1/messages/batches(?:/([^/]+)(/cancel|/results)?)?$`)
)

func (s *batchServer) fail(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	io.WriteString(w, llmtest.AnthropicError(status, msg))
}

func (s *batchServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	m := batchPaths.FindStringSubmatch(r.URL.Path)
	if m == nil {
		s.messages.ServeHTTP(w, r)
		return
	}
	if s.o.Key != "" && r.Header.Get("x-api-key") != s.o.Key && r.Header.Get("Authorization") != "Bearer "+s.o.Key {
		s.fail(w, http.StatusUnauthorized, "invalid x-api-key")
		return
	}
	if r.Header.Get("anthropic-version") == "" {
		s.fail(w, http.StatusBadRequest, "anthropic-version: header is required")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if m[1] == "" {
		if r.Method != http.MethodPost {
			http.NotFound(w, r)
			return
		}
		s.create(w, r)
		return
	}
	b := s.batches[m[1]]
	if b == nil {
		s.fail(w, http.StatusNotFound, "The requested resource could not be found.")
		return
	}
	switch {
	case m[2] == "" && r.Method == http.MethodGet:
		s.advance(b, "http://"+r.Host)
	case m[2] == "/cancel" && r.Method == http.MethodPost:
		if b.ProcessingStatus == "in_progress" {
			b.ProcessingStatus = "canceling"
			at := "2026-01-01T00:00:01Z"
			b.CancelInitiatedAt = &at
		}
	case m[2] == "/results" && r.Method == http.MethodGet:
		if b.ProcessingStatus != "ended" {
			s.fail(w, http.StatusBadRequest, fmt.Sprintf("Message Batch %s has not yet ended processing.", b.ID))
			return
		}
		w.Header().Set("Content-Type", "application/binary")
		w.Write(b.results)
		return
	default:
		http.NotFound(w, r)
		return
	}
	llmtest.WriteJSON(w, b)
}

func (s *batchServer) create(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Requests []msgRequest `json:"requests"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 256<<20)).Decode(&body); err != nil {
		s.fail(w, http.StatusBadRequest, "The request body is not valid JSON.")
		return
	}
	if len(body.Requests) == 0 {
		s.fail(w, http.StatusBadRequest, "requests: List should have at least 1 item after validation, not 0")
		return
	}
	if len(body.Requests) > 100000 {
		s.fail(w, http.StatusBadRequest, "requests: List should have at most 100000 items after validation")
		return
	}
	seen := map[string]bool{}
	for i, q := range body.Requests {
		var p map[string]json.RawMessage
		switch {
		case !customID.MatchString(q.CustomID):
			s.fail(w, http.StatusBadRequest, fmt.Sprintf("requests.%d.custom_id: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'", i))
			return
		case seen[q.CustomID]:
			s.fail(w, http.StatusBadRequest, fmt.Sprintf("requests.%d.custom_id: Duplicate custom_id %q", i, q.CustomID))
			return
		case json.Unmarshal(q.Params, &p) != nil:
			s.fail(w, http.StatusBadRequest, fmt.Sprintf("requests.%d.params: Input should be a valid dictionary", i))
			return
		case string(p["stream"]) == "true":
			s.fail(w, http.StatusBadRequest, fmt.Sprintf("requests.%d.params.stream: streaming is not supported in Message Batches", i))
			return
		}
		seen[q.CustomID] = true
	}
	s.n++
	b := &msgBatch{ID: fmt.Sprintf("msgbatch_%024d", s.n), Type: "message_batch", ProcessingStatus: "in_progress",
		RequestCounts: map[string]int{"processing": len(body.Requests), "succeeded": 0, "errored": 0, "canceled": 0, "expired": 0},
		CreatedAt:     "2026-01-01T00:00:00Z", ExpiresAt: "2026-01-02T00:00:00Z", reqs: body.Requests, header: r.Header.Clone()}
	s.batches[b.ID] = b
	llmtest.WriteJSON(w, b)
}

// advance moves the batch on, as time would: the first read finds it in
// progress, the next one ended (or expired, or canceled, by the quirks).
func (s *batchServer) advance(b *msgBatch, self string) {
	q := s.o.Quirks
	switch b.ProcessingStatus {
	case "in_progress":
		switch {
		case q["batch-never-ends"]:
		case q["batch-expire"]:
			s.end(b, self, len(b.reqs)/2, "expired")
		default:
			s.end(b, self, len(b.reqs), "")
		}
	case "canceling":
		s.end(b, self, len(b.reqs)/2, "canceled")
	}
}

// end runs the first done requests through the Messages emulation and
// gives the rest the result type rest.
func (s *batchServer) end(b *msgBatch, self string, done int, rest string) {
	var out bytes.Buffer
	for k := range b.RequestCounts {
		b.RequestCounts[k] = 0
	}
	for i := len(b.reqs) - 1; i >= 0; i-- {
		q := b.reqs[i]
		var result any
		if i >= done {
			result = map[string]any{"type": rest}
			b.RequestCounts[rest]++
		} else {
			rec := httptest.NewRecorder()
			r := httptest.NewRequest(http.MethodPost, "/v1/messages", bytes.NewReader(q.Params))
			r.Header = b.header.Clone()
			s.messages.ServeHTTP(rec, r)
			if rec.Code == http.StatusOK {
				result = map[string]any{"type": "succeeded", "message": json.RawMessage(rec.Body.Bytes())}
				b.RequestCounts["succeeded"]++
			} else {
				result = map[string]any{"type": "errored", "error": json.RawMessage(rec.Body.Bytes())}
				b.RequestCounts["errored"]++
			}
		}
		line, _ := json.Marshal(map[string]any{"custom_id": q.CustomID, "result": result})
		out.Write(append(line, '\n'))
	}
	b.results = out.Bytes()
	url := self + "/v1/messages/batches/" + b.ID + "/results"
	at := "2026-01-01T00:10:00Z"
	b.ResultsURL, b.EndedAt, b.ProcessingStatus = &url, &at, "ended"
}
