package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcp-eval/mcp-eval/llm/llmtest"
)

var update = flag.Bool("update", false, "rewrite the golden request bodies under testdata/")

// Keys shaped like real ones, so a leak would be recognisable.
const (
	openAITestKey    = "sk-proj-TESTKEY0123456789abcdefABCDEF"
	anthropicTestKey = "sk-ant-api03-TESTKEY0123456789abcdef"
)

// step is one scripted answer of a fake provider: a status, headers and a
// body (literal or a testdata file), or a handler for anything odder.
type step struct {
	status  int
	header  map[string]string
	body    string
	file    string
	handler http.HandlerFunc
}

type recorded struct {
	method, path, query string
	header              http.Header
	body                []byte
}

// fake is a scripted model API: it answers requests with its steps in order
// and records what it received.
type fake struct {
	t     *testing.T
	srv   *httptest.Server
	mu    sync.Mutex
	steps []step
	reqs  []recorded
}

func newFake(t *testing.T, steps ...step) *fake {
	t.Helper()
	f := &fake{t: t, steps: steps}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fake) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.reqs = append(f.reqs, recorded{r.Method, r.URL.Path, r.URL.RawQuery, r.Header.Clone(), body})
	if msg := llmtest.Reject(r.URL.Path, body); msg != "" {
		// What the real APIs answer, whatever the script says; no step is
		// used up.
		f.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"type":"error","error":{"type":"invalid_request_error","message":%q}}`, msg)
		return
	}
	var s step
	ok := len(f.steps) > 0
	if ok {
		s, f.steps = f.steps[0], f.steps[1:]
	}
	f.mu.Unlock()
	if !ok {
		f.t.Errorf("unexpected request %d to %s: the script has no step left", len(f.reqs), r.URL.Path)
		http.Error(w, "no step", http.StatusTeapot)
		return
	}
	if s.handler != nil {
		s.handler(w, r)
		return
	}
	for k, v := range s.header {
		w.Header().Set(k, v)
	}
	if w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", "application/json")
	}
	w.WriteHeader(cmpOr(s.status, http.StatusOK))
	if s.file != "" {
		w.Write(readTestdata(f.t, s.file))
		return
	}
	io.WriteString(w, s.body)
}

func (f *fake) requests() []recorded {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]recorded(nil), f.reqs...)
}

func cmpOr(a, b int) int {
	if a != 0 {
		return a
	}
	return b
}

func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// checkGolden compares a request body with testdata/name byte for byte
// after compacting the golden file, so field order, omitted fields and
// values are all asserted. With -update it rewrites the file.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		var b bytes.Buffer
		if err := json.Indent(&b, got, "", "  "); err != nil {
			t.Fatalf("request body is not JSON: %v\n%s", err, got)
		}
		b.WriteByte('\n')
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := readTestdata(t, name)
	var compact bytes.Buffer
	if err := json.Compact(&compact, want); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if diff := cmp.Diff(compact.String(), string(got)); diff != "" {
		t.Errorf("request body differs from %s (-want +got):\n%s\n(run go test ./llm -run %s -update to accept)", path, diff, t.Name())
	}
}

// sleeps records the waits between retries instead of sleeping.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.d = append(s.d, d)
	s.mu.Unlock()
	return ctx.Err()
}

func (s *sleeps) got() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.d...)
}

// event is one Observer call.
type event struct {
	start    bool
	provider string
	model    string
	usage    Usage
	err      error
}

type recorder struct {
	mu     sync.Mutex
	events []event
}

func (r *recorder) RequestStart(provider, model string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, event{start: true, provider: provider, model: model})
}

func (r *recorder) RequestEnd(provider, model string, d time.Duration, u Usage, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, event{provider: provider, model: model, usage: u, err: err})
}

// backend describes one wire format for the tests that run against both.
// Its provider is built here the way llm/openai and llm/anthropic build
// theirs (their own tests cover the environment and the credential
// headers): a Client on the fake with the provider's headers.
type backend struct {
	name     string
	open     func(base string, s Settings) Provider
	key      string
	path     string            // request path the fake must see
	headers  map[string]string // headers every request carries; "" for one it must not
	okFile   string            // a valid response
	okUsage  Usage
	errFile  string // a 400 error body
	errType  string
	overload step // the provider's "try later" answer
}

var backends = []backend{
	{
		name: "openai",
		open: func(base string, s Settings) Provider {
			c := NewClient("openai", base+"/v1/chat/completions", BearerHeader(openAITestKey), []string{openAITestKey}, s)
			return NewChat(c, ChatOptions{})
		},
		key:  openAITestKey,
		path: "/v1/chat/completions",
		headers: map[string]string{
			"Authorization": "Bearer " + openAITestKey,
			"Content-Type":  "application/json",
			"Accept":        "application/json",
			"api-key":       "", // only for Azure hosts
		},
		okFile:   "openai/text.response.json",
		okUsage:  Usage{InputTokens: 23, OutputTokens: 14},
		errFile:  "openai/error_400.json",
		errType:  "invalid_request_error",
		overload: step{status: 503, file: "openai/error_503.json"},
	},
	{
		name: "anthropic",
		open: func(base string, s Settings) Provider {
			h := http.Header{}
			h.Set("x-api-key", anthropicTestKey)
			h.Set("anthropic-version", "2023-06-01")
			return NewMessages(NewClient("anthropic", base+"/v1/messages", h, []string{anthropicTestKey}, s), MessagesOptions{})
		},
		key:  anthropicTestKey,
		path: "/v1/messages",
		headers: map[string]string{
			"x-api-key":         anthropicTestKey,
			"anthropic-version": "2023-06-01",
			"Content-Type":      "application/json",
			"Accept":            "application/json",
			"Authorization":     "",
		},
		okFile:   "anthropic/text.response.json",
		okUsage:  Usage{InputTokens: 412, OutputTokens: 21},
		errFile:  "anthropic/error_400.json",
		errType:  "invalid_request_error",
		overload: step{status: 529, file: "anthropic/error_529.json"},
	},
}

// provider builds b's Provider against f with recorded sleeps.
func (b backend) provider(t *testing.T, f *fake, opts ...Option) (Provider, *sleeps) {
	t.Helper()
	s := &sleeps{}
	return b.open(f.srv.URL, NewSettings(append([]Option{WithSleep(s.sleep)}, opts...)...)), s
}

// forEachBackend runs test once per backend, as parallel subtests named
// after the provider.
func forEachBackend(t *testing.T, test func(t *testing.T, b backend)) {
	t.Helper()
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			test(t, b)
		})
	}
}

// wireCase is one request sent through a provider: the answer the fake
// gives (a testdata file), the request body the provider must send (a
// golden testdata file) and the Response it must decode.
type wireCase struct {
	name     string
	req      Request
	response string
	golden   string
	want     Response
}

// testWire runs the cases against b: the decoded Response, exactly one
// POST to b.path with b.headers, the body byte for byte against the golden
// file, and an answer that marshals (transcripts replay it).
func testWire(t *testing.T, b backend, tests []wireCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFake(t, step{file: tt.response})
			p, _ := b.provider(t, f)
			got, err := p.Complete(t.Context(), tt.req)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(&tt.want, got); diff != "" {
				t.Errorf("response (-want +got):\n%s", diff)
			}
			reqs := f.requests()
			if len(reqs) != 1 {
				t.Fatalf("got %d requests, want 1", len(reqs))
			}
			r := reqs[0]
			if r.method != http.MethodPost || r.path != b.path {
				t.Errorf("got %s %s, want POST %s", r.method, r.path, b.path)
			}
			for k, want := range b.headers {
				if got := r.header.Get(k); got != want {
					t.Errorf("header %s = %q, want %q", k, got, want)
				}
			}
			checkGolden(t, tt.golden, r.body)
			if _, err := json.Marshal(got); err != nil {
				t.Errorf("response does not marshal: %v", err)
			}
		})
	}
}

func simpleRequest() Request {
	zero := 0.0
	return Request{
		Model:       "test-model",
		Messages:    []Message{{Role: RoleUser, Content: "What is the weather in Paris?"}},
		Temperature: &zero,
	}
}
