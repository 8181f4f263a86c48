package llm

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// seedFiles adds every testdata response and error body under dir.
func seedFiles(f *testing.F, dir string) {
	paths, _ := filepath.Glob(filepath.Join("testdata", dir, "*.json"))
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

// checkDecoded asserts what callers rely on from any decoded response: it
// marshals (so tool arguments are valid JSON) and every call has an id.
func checkDecoded(t *testing.T, r *Response) {
	if _, err := json.Marshal(r); err != nil {
		t.Fatalf("decoded response does not marshal: %v", err)
	}
	for _, c := range r.Message.ToolCalls {
		if c.ID == "" {
			t.Errorf("tool call without id: %+v", c)
		}
		if (c.Arguments == nil) == (c.InvalidArguments == "") {
			t.Errorf("exactly one of Arguments and InvalidArguments must be set: %+v", c)
		}
	}
}

// fuzzDecoder fuzzes decode from the testdata bodies under dir and the
// extra seeds: whatever it accepts must pass checkDecoded.
func fuzzDecoder(f *testing.F, dir string, decode func([]byte, string) (*Response, error), seeds ...string) {
	seedFiles(f, dir)
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if r, err := decode(data, "m"); err == nil {
			checkDecoded(t, r)
		}
	})
}

func FuzzDecodeChat(f *testing.F) {
	fuzzDecoder(f, "openai", func(b []byte, m string) (*Response, error) { return decodeChat(b, m, "openai") },
		"data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":3,\"function\":{\"arguments\":\"{\"}}]}}]}\n\n",
		": OPENROUTER PROCESSING\n\ndata: [DONE]\n",
		`{"choices":[{"message":{"tool_calls":[{"function":{"arguments":"\"nested\""}}]}}]}`,
		`{"choices":[{"message":{"content":[{"type":"text","text":"x"}],"tool_calls":[{"function":{"arguments":[1,2]}}]}}]}`)
}

func FuzzDecodeAnthropic(f *testing.F) {
	fuzzDecoder(f, "anthropic", decodeAnthropic,
		`{"content":[{"type":"tool_use","input":[1]},{"type":"tool_use","input":"x"}]}`)
}

func FuzzParseErrorBody(f *testing.F) {
	seedFiles(f, "openai")
	seedFiles(f, "anthropic")
	f.Add([]byte(`{"error":"plain"}`))
	f.Add([]byte(`{"object":"error","message":"m","code":400}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var e APIError
		parseErrorBody(&e, data)
		if len(e.Message) > maxPlainMessage+len("…") && !json.Valid(data) {
			t.Errorf("plain message not truncated: %d bytes", len(e.Message))
		}
	})
}

func FuzzRetryAfter(f *testing.F) {
	for _, s := range []string{"1", "0.25", "1e400", "-3", "Sat, 01 Aug 2026 12:00:10 GMT", "NaN", "Inf"} {
		f.Add(s, s)
	}
	now := time.Date(2026, 8, 1, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, ra, ms string) {
		h := http.Header{}
		h.Set("Retry-After", ra)
		h.Set("retry-after-ms", ms)
		if d, _ := retryAfter(h, now); d < 0 {
			t.Errorf("negative wait %v for %q, %q", d, ra, ms)
		}
	})
}
