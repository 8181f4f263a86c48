package openaitest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"

	"github.com/mcp-eval/mcp-eval/llm/llmtest"
)

// batchServer is OpenAI's Batch API in front of the Chat Completions
// emulation, strict where the API is
// (https://platform.openai.com/docs/api-reference/batch,
// https://platform.openai.com/docs/api-reference/files):
//
//   - POST /v1/files is multipart with a purpose (one of the API's) and a
//     file; purpose "batch" takes only a .jsonl file of at most 200 MB;
//   - POST /v1/batches needs an existing input_file_id of purpose batch,
//     an endpoint the API batches and completion_window "24h";
//   - the input is validated as the API does while the batch is
//     "validating": each line JSON with a custom_id unique in the file,
//     method POST, url equal to the batch's endpoint, a body naming one
//     model for the whole file, at most 50 000 lines; a failure makes the
//     batch "failed" with errors.data [{code, message, line}];
//   - each GET of the batch advances it one status: validating →
//     in_progress → finalizing → completed; the answers are the Chat
//     Completions emulation's, each line {"id", "custom_id", "response":
//     {"status_code", "request_id", "body"}, "error": null}, 2xx in the
//     output file and the rest in the error file, in reverse order (the
//     API does not keep the input order);
//   - POST /v1/batches/{id}/cancel: cancelling, then cancelled with what
//     had finished; a batch that has ended cannot be cancelled (400).
//
// Quirks: "batch-expire" ends the batch expired with the first half of
// its requests answered and the rest in the error file as batch_expired;
// "batch-never-ends" keeps it in_progress (half of it answered) until
// cancelled; "batch-cancelled" has it cancelled by someone else.
type batchServer struct {
	o    llmtest.Options
	chat http.Handler

	mu      sync.Mutex
	n       int
	files   map[string]*file
	batches map[string]*batch
}

type file struct {
	purpose string
	data    []byte
}

type batch struct {
	ID               string         `json:"id"`
	Object           string         `json:"object"`
	Endpoint         string         `json:"endpoint"`
	InputFileID      string         `json:"input_file_id"`
	CompletionWindow string         `json:"completion_window"`
	Status           string         `json:"status"`
	OutputFileID     *string        `json:"output_file_id"`
	ErrorFileID      *string        `json:"error_file_id"`
	Errors           any            `json:"errors"`
	RequestCounts    map[string]int `json:"request_counts"`
	polls            int
	lines            []inputLine
	auth             string
}

type inputLine struct {
	CustomID string          `json:"custom_id"`
	Method   string          `json:"method"`
	URL      string          `json:"url"`
	Body     json.RawMessage `json:"body"`
}

var batchEndpoints = map[string]bool{"/v1/responses": true, "/v1/chat/completions": true, "/v1/embeddings": true, "/v1/completions": true, "/v1/moderations": true}

var filePurposes = map[string]bool{"assistants": true, "batch": true, "fine-tune": true, "vision": true, "user_data": true, "evals": true}

var batchPath = regexp.MustCompile(`^/v1/batches/([^/]+)(/cancel)?$`)
var filePath = regexp.MustCompile(`^/v1/files/([^/]+)/content$`)

func (s *batchServer) fail(w http.ResponseWriter, status int, msg, param string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error", "param": param, "code": nil}})
	w.Write(b)
}

func (s *batchServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	isBatch := r.URL.Path == "/v1/files" || r.URL.Path == "/v1/batches" || batchPath.MatchString(r.URL.Path) || filePath.MatchString(r.URL.Path)
	if !isBatch {
		s.chat.ServeHTTP(w, r)
		return
	}
	if s.o.Key != "" && r.Header.Get("Authorization") != "Bearer "+s.o.Key {
		s.fail(w, http.StatusUnauthorized, "Incorrect API key provided.", "")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/v1/files":
		s.upload(w, r)
	case r.Method == http.MethodPost && r.URL.Path == "/v1/batches":
		s.create(w, r)
	case r.Method == http.MethodGet && filePath.MatchString(r.URL.Path):
		f := s.files[filePath.FindStringSubmatch(r.URL.Path)[1]]
		if f == nil {
			s.fail(w, http.StatusNotFound, "No such File object: "+filePath.FindStringSubmatch(r.URL.Path)[1], "id")
			return
		}
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Write(f.data)
	case batchPath.MatchString(r.URL.Path):
		m := batchPath.FindStringSubmatch(r.URL.Path)
		b := s.batches[m[1]]
		if b == nil {
			s.fail(w, http.StatusNotFound, "No batch found with id '"+m[1]+"'.", "")
			return
		}
		switch {
		case m[2] == "/cancel" && r.Method == http.MethodPost:
			switch b.Status {
			case "validating", "in_progress", "finalizing":
				b.Status = "cancelling"
			default:
				s.fail(w, http.StatusBadRequest, fmt.Sprintf("Cannot cancel a batch with status '%s'.", b.Status), "")
				return
			}
		case m[2] == "" && r.Method == http.MethodGet:
			s.advance(b)
		default:
			http.NotFound(w, r)
			return
		}
		llmtest.WriteJSON(w, b)
	default:
		http.NotFound(w, r)
	}
}

func (s *batchServer) id(prefix string) string {
	s.n++
	return fmt.Sprintf("%s%024d", prefix, s.n)
}

func (s *batchServer) upload(w http.ResponseWriter, r *http.Request) {
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" {
		s.fail(w, http.StatusBadRequest, "Invalid request: expected multipart/form-data.", "")
		return
	}
	mr := multipart.NewReader(io.LimitReader(r.Body, 201<<20), params["boundary"])
	var purpose, name string
	var data []byte
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			s.fail(w, http.StatusBadRequest, "Invalid multipart body: "+err.Error(), "")
			return
		}
		b, _ := io.ReadAll(p)
		switch p.FormName() {
		case "purpose":
			purpose = string(b)
		case "file":
			name, data = p.FileName(), b
		}
	}
	switch {
	case purpose == "":
		s.fail(w, http.StatusBadRequest, "Missing required parameter: 'purpose'.", "purpose")
	case !filePurposes[purpose]:
		s.fail(w, http.StatusBadRequest, fmt.Sprintf("Invalid value for 'purpose': '%s'.", purpose), "purpose")
	case data == nil:
		s.fail(w, http.StatusBadRequest, "Missing required parameter: 'file'.", "file")
	case purpose == "batch" && !strings.HasSuffix(name, ".jsonl"):
		s.fail(w, http.StatusBadRequest, "Invalid file format for Batch API. Must be .jsonl", "file")
	case purpose == "batch" && len(data) > 200<<20:
		s.fail(w, http.StatusBadRequest, "File exceeds the 200 MB limit of the Batch API.", "file")
	default:
		id := s.id("file-")
		s.files[id] = &file{purpose: purpose, data: data}
		llmtest.WriteJSON(w, map[string]any{"id": id, "object": "file", "bytes": len(data), "filename": name, "purpose": purpose, "status": "processed"})
	}
}

func (s *batchServer) create(w http.ResponseWriter, r *http.Request) {
	var req struct {
		InputFileID      string `json:"input_file_id"`
		Endpoint         string `json:"endpoint"`
		CompletionWindow string `json:"completion_window"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&req); err != nil {
		s.fail(w, http.StatusBadRequest, "We could not parse the JSON body of your request.", "")
		return
	}
	f := s.files[req.InputFileID]
	switch {
	case req.InputFileID == "":
		s.fail(w, http.StatusBadRequest, "Missing required parameter: 'input_file_id'.", "input_file_id")
		return
	case f == nil:
		s.fail(w, http.StatusNotFound, "No such File object: "+req.InputFileID, "input_file_id")
		return
	case f.purpose != "batch":
		s.fail(w, http.StatusBadRequest, "The input file must be uploaded with purpose 'batch'.", "input_file_id")
		return
	case !batchEndpoints[req.Endpoint]:
		s.fail(w, http.StatusBadRequest, fmt.Sprintf("Invalid value for 'endpoint': '%s'.", req.Endpoint), "endpoint")
		return
	case req.CompletionWindow != "24h":
		s.fail(w, http.StatusBadRequest, fmt.Sprintf("Invalid value for 'completion_window': '%s'. Supported values are: '24h'.", req.CompletionWindow), "completion_window")
		return
	}
	b := &batch{ID: s.id("batch_"), Object: "batch", Endpoint: req.Endpoint, InputFileID: req.InputFileID, CompletionWindow: "24h",
		Status: "validating", RequestCounts: map[string]int{"total": 0, "completed": 0, "failed": 0}, auth: r.Header.Get("Authorization")}
	s.batches[b.ID] = b
	llmtest.WriteJSON(w, b)
}

// validate reads the input file as the API does while validating; a
// failure is the batch's errors.data.
func (s *batchServer) validate(b *batch) error {
	fail := func(line int, code, msg string) error {
		b.Errors = map[string]any{"object": "list", "data": []any{map[string]any{"code": code, "message": msg, "param": nil, "line": line}}}
		return fmt.Errorf("%s", msg)
	}
	seen := map[string]bool{}
	model := ""
	for i, raw := range bytes.Split(bytes.TrimRight(s.files[b.InputFileID].data, "\n"), []byte("\n")) {
		n := i + 1
		var l inputLine
		if err := json.Unmarshal(raw, &l); err != nil {
			return fail(n, "invalid_json_line", "This line is not parseable as valid JSON.")
		}
		var body struct {
			Model  string `json:"model"`
			Stream bool   `json:"stream"`
		}
		switch {
		case l.CustomID == "":
			return fail(n, "missing_required_parameter", "Missing required parameter: 'custom_id'.")
		case seen[l.CustomID]:
			return fail(n, "duplicate_custom_id", "The custom_id for this request is a duplicate of another request. The custom_id parameter must be unique for each individual request in a batch.")
		case l.Method != "POST":
			return fail(n, "invalid_method", "The method for this request must be POST.")
		case l.URL != b.Endpoint:
			return fail(n, "mismatched_endpoint", "The provided URL for this request does not match the endpoint of the batch.")
		case json.Unmarshal(l.Body, &body) != nil || body.Model == "":
			return fail(n, "missing_required_parameter", "Missing required parameter: 'body.model'.")
		case model != "" && body.Model != model:
			return fail(n, "model_mismatch", "Requests in a batch must all use the same model.")
		case body.Stream:
			return fail(n, "invalid_value", "Streaming is not supported in the Batch API.")
		case n > 50000:
			return fail(n, "too_many_requests", "A batch holds at most 50,000 requests.")
		}
		seen[l.CustomID], model = true, body.Model
		b.lines = append(b.lines, l)
	}
	if len(b.lines) == 0 {
		return fail(1, "empty_file", "The input file is empty.")
	}
	b.RequestCounts["total"] = len(b.lines)
	return nil
}

// advance moves the batch one status on, as time would.
func (s *batchServer) advance(b *batch) {
	b.polls++
	q := s.o.Quirks
	switch b.Status {
	case "validating":
		if s.validate(b) != nil {
			b.Status = "failed"
			return
		}
		b.Status = "in_progress"
		if q["batch-cancelled"] {
			b.Status = "cancelling"
		}
	case "in_progress":
		switch {
		case q["batch-expire"]:
			s.finish(b, "expired", len(b.lines)/2)
		case q["batch-never-ends"]:
		default:
			b.Status = "finalizing"
		}
	case "finalizing":
		s.finish(b, "completed", len(b.lines))
	case "cancelling":
		done := len(b.lines) / 2
		if q["batch-cancelled"] {
			done = 0
		}
		s.finish(b, "cancelled", done)
	}
}

// finish ends the batch with status, the first done requests answered by
// the chat emulation and the rest unanswered (expired: batch_expired in
// the error file; cancelled: left out).
func (s *batchServer) finish(b *batch, status string, done int) {
	var out, errs bytes.Buffer
	for i := len(b.lines) - 1; i >= 0; i-- { // reverse: the order is not kept
		l := b.lines[i]
		if i >= done {
			if status == "expired" {
				line, _ := json.Marshal(map[string]any{"id": fmt.Sprintf("batch_req_%d", i), "custom_id": l.CustomID, "response": nil,
					"error": map[string]any{"code": "batch_expired", "message": "This request could not be executed before the completion window expired."}})
				errs.Write(append(line, '\n'))
			}
			continue
		}
		rec := httptest.NewRecorder()
		r := httptest.NewRequest(http.MethodPost, b.Endpoint, bytes.NewReader(l.Body))
		r.Header.Set("Authorization", b.auth)
		r.Header.Set("Content-Type", "application/json")
		s.chat.ServeHTTP(rec, r)
		line, _ := json.Marshal(map[string]any{"id": fmt.Sprintf("batch_req_%d", i), "custom_id": l.CustomID,
			"response": map[string]any{"status_code": rec.Code, "request_id": fmt.Sprintf("req_%d", i), "body": json.RawMessage(rec.Body.Bytes())}, "error": nil})
		if rec.Code == http.StatusOK {
			out.Write(append(line, '\n'))
			b.RequestCounts["completed"]++
		} else {
			errs.Write(append(line, '\n'))
			b.RequestCounts["failed"]++
		}
	}
	if status == "expired" {
		b.RequestCounts["failed"] += len(b.lines) - done
	}
	if out.Len() > 0 {
		id := s.id("file-")
		s.files[id] = &file{purpose: "batch_output", data: out.Bytes()}
		b.OutputFileID = &id
	}
	if errs.Len() > 0 {
		id := s.id("file-")
		s.files[id] = &file{purpose: "batch_output", data: errs.Bytes()}
		b.ErrorFileID = &id
	}
	b.Status = status
}
